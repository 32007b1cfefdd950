import type { ReceiptDevice } from '../engine/campaign/types.js';
import type { Db } from './db.js';

/** A supervisor process as the health report lists it. */
export interface WorkerRow {
  id: string;
  hostname: string;
  pid: number;
  slots: number;
  tensor_backend: string | null;
  /** the GPU adapter of a webgpu backend; null on the CPU backends */
  tensor_device: ReceiptDevice | null;
  started_at: Date;
  last_seen_at: Date;
  stopped_at: Date | null;
}

export async function registerWorker(db: Db, row: Pick<WorkerRow, 'id' | 'hostname' | 'pid' | 'slots'>): Promise<void> {
  await db('workers').insert(row);
}

/** The heartbeat: the worker is alive, and which tensor backend (and GPU) its engine pool ended up on. */
export async function touchWorker(db: Db, id: string, backend: { name: string; device: ReceiptDevice | null } | null): Promise<void> {
  await db('workers')
    .where({ id })
    .update({ last_seen_at: db.fn.now(), tensor_backend: backend?.name ?? null, tensor_device: backend?.device ?? null });
}

export async function markWorkerStopped(db: Db, id: string): Promise<void> {
  await db('workers').where({ id }).update({ stopped_at: db.fn.now(), last_seen_at: db.fn.now() });
}

/** Workers that have not stopped and beat within two minutes, most recent first. */
export async function liveWorkers(db: Db): Promise<Pick<WorkerRow, 'id' | 'hostname' | 'slots' | 'tensor_backend' | 'tensor_device' | 'last_seen_at'>[]> {
  return db('workers')
    .whereNull('stopped_at')
    .andWhere('last_seen_at', '>', db.raw(`now() - interval '2 minutes'`))
    .orderBy('last_seen_at', 'desc')
    .select('id', 'hostname', 'slots', 'tensor_backend', 'tensor_device', 'last_seen_at');
}
