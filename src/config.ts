import { z } from 'zod';
import { TENSOR_BACKEND_CHOICES, type TensorBackendChoice } from './engine/tensor/choices.js';

/**
 * Service configuration from the environment, validated once at start so a typo fails loudly
 * with every problem listed, instead of surfacing later as odd behaviour.
 */
const integer = (min: number, max: number) =>
  z.string().regex(/^\d+$/, { message: 'must be a whole number' }).transform(Number).pipe(z.number().int().min(min).max(max));

const configSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection string' })
    .optional(),
  PORT: integer(0, 65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  API_SECRET_KEY: z.string().min(32, { message: 'must be at least 32 characters' }).optional(),
  WORKER_CONCURRENCY: integer(0, 256).default(1),
  /** override the plans' per-minute and per-hour limits for every key; 0 disables rate limiting */
  API_RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000).optional(),
  API_RATE_LIMIT_PER_HOUR: integer(0, 100_000_000).optional(),
  BOOTSTRAP_ADMIN_KEY: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KILN_DATA_DIR: z.string().min(1).default('data'),
  /** auto, tensorflow, webgpu, wasm or cpu: the server's, its workers' and `kiln run`'s tensor backend (also --backend) */
  KILN_TENSOR_BACKEND: z.enum(TENSOR_BACKEND_CHOICES as [TensorBackendChoice, ...TensorBackendChoice[]]).default('auto'),
  /** a worker slot that stops renewing its lease for this long is presumed dead */
  KILN_LEASE_SECONDS: integer(2, 3600).default(30),
  /** attempts a job gets when its worker dies (lease lapse) before it fails; each goes back to the queue by itself */
  KILN_MAX_ATTEMPTS: integer(1, 100).default(5),
  /** SIGTERM: how long running iterations may take to finish before their jobs are handed back */
  KILN_SHUTDOWN_GRACE_SECONDS: integer(0, 3600).default(30),
  /** hosts http evaluators may call, comma-separated (example.com, *.example.com, host:port, or * for any public host) */
  KILN_HTTP_EVALUATOR_HOSTS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((h) => h.trim())
        .filter((h) => h !== ''),
    ),
  /** proxies in front of the API that append to X-Forwarded-For; 0: the socket's address is the client's */
  KILN_TRUSTED_PROXIES: integer(0, 10).default(0),
  /** whether campaigns may run programs on worker hosts (command evaluators) */
  KILN_ALLOW_COMMAND_EVALUATOR: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  /** the externally visible base URL (behind a proxy); social login builds its provider callback from it */
  KILN_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** origins whose URLs may receive social-login codes, comma-separated; unset: Kiln's own origin and loopback */
  KILN_OAUTH_REDIRECT_ORIGINS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((o) => o.trim())
        .filter((o) => o !== ''),
    )
    .pipe(z.array(z.url({ protocol: /^https?$/ }))),
  KILN_OIDC_GOOGLE_ISSUER: z.url().optional(),
  KILN_OIDC_GOOGLE_CLIENT_ID: z.string().optional(),
  KILN_OIDC_GOOGLE_CLIENT_SECRET: z.string().optional(),
  KILN_OIDC_GITHUB_ISSUER: z.url().optional(),
  KILN_OIDC_GITHUB_CLIENT_ID: z.string().optional(),
  KILN_OIDC_GITHUB_CLIENT_SECRET: z.string().optional(),
  KILN_OIDC_ORCID_ISSUER: z.url().optional(),
  KILN_OIDC_ORCID_CLIENT_ID: z.string().optional(),
  KILN_OIDC_ORCID_CLIENT_SECRET: z.string().optional(),
});

export type Config = z.output<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Kiln's configuration is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  return parsed.data;
}
