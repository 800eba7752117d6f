// Extra services `scrape-etl up` can run beside its workers, each behind an option of its own (`up --console`).
// A service's module is loaded only when its option is given; it gets what `up` runs (the Temporal address, the data
// folder, the task queue) and returns what to print and how to stop it. The local console registers here.
export interface UpServiceContext {
  dataDir: string;
  address: string;
  namespace: string;
  taskQueue: string;
  uiUrl: string | undefined;
  metricsUrl: string | undefined;
  log(message: string): void;
}

export interface RunningUpService {
  /** One line for the screen `up` prints, e.g. `console: http://127.0.0.1:8233`. */
  describe: string;
  /** Called when `up` stops, after its workers have drained and before the embedded server stops. */
  close(): Promise<void>;
}

export interface UpService {
  start(ctx: UpServiceContext): Promise<RunningUpService>;
}

/**
 * The services by their option name. A builder of one adds a line here: `name: async () => (await import('…')).service`.
 * An option given for a service listed with `undefined` is refused with a clear message.
 */
export const UP_SERVICES: Record<string, { description: string; load: (() => Promise<UpService>) | undefined }> = {
  console: {
    description: 'also serve the local console (read-only, 127.0.0.1, a free port)',
    load: async () => (await import('./console-service.js')).consoleService,
  },
};
