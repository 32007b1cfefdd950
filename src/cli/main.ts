import { join } from 'node:path';
import { Command } from 'commander';
import { exportCommand } from './export.js';
import { hvCommand, paretoCommand } from './hv.js';
import { replayCommand } from './replay.js';
import { runCampaignFile, runCommand } from './run.js';
import { validateCommand } from './validate.js';
import { processIo } from './io.js';
import { packageRoot, packageVersion } from '../package-root.js';
import { serviceCommands } from './serve.js';

/** The example `kiln demo` runs: the engine alone, without the service. */
const DEMO_CAMPAIGN = join(packageRoot(), 'examples', 'battery-cathode.yaml');

const program = new Command('kiln')
  .description('Kiln: multi-objective materials-optimization campaigns')
  .version(packageVersion(), '-V, --version', 'print the Kiln version')
  .showHelpAfterError()
  .addCommand(runCommand())
  .addCommand(exportCommand())
  .addCommand(replayCommand())
  .addCommand(validateCommand())
  .addCommand(hvCommand())
  .addCommand(paretoCommand())
  .addCommand(
    new Command('demo').description(`run the demo campaign (${DEMO_CAMPAIGN.split('/').slice(-2).join('/')}) into ./kiln-out`).action(async () => {
      process.exitCode = await runCampaignFile(DEMO_CAMPAIGN, { out: 'kiln-out' }, processIo);
    }),
  );
for (const command of serviceCommands()) program.addCommand(command);

await program.parseAsync(process.argv);
