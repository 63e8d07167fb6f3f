package dev.materializer.core;

/** What the engine as a whole is doing. */
public enum EngineState {

    /** Created, not started. */
    NEW,

    /** Starting: connecting, detecting the server, reading the views. */
    STARTING,

    /** Running: streams open, passes run. */
    RUNNING,

    /** Not running yet: the start failed (for example MongoDB unreachable) and is retried with backoff. */
    RETRYING,

    /** Stopping: intake stopped, work in flight draining. */
    STOPPING,

    /** Stopped: streams closed, no work runs. */
    STOPPED
}
