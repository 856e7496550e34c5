/**
 * The export worker's V8 heap flags, set in its Lambda's NODE_OPTIONS (lib/export-worker.ts) and
 * passed to the worker process the bench measures (bench/exports.ts), so the figures are the
 * deployed worker's. Since Node 20, V8 sizes the young generation from the heap limit, which
 * depends on the machine (32 MB semi-spaces, a 96 MB young generation, on a host with many GB);
 * an export makes short-lived objects by the million (cells, response items), and each of the
 * three semi-spaces is resident once used. 16 MB (Node 18's fixed default) keeps the 50,000-row
 * XLSX under 256 MB of peak RSS with no more CPU (docs/decisions/0018, figures). No CDK imports
 * here: the bench reads this file.
 */
export const EXPORT_WORKER_HEAP_FLAGS: readonly string[] = ['--max-semi-space-size=16']
