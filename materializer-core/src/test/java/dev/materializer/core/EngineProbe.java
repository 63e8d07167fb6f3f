package dev.materializer.core;

import java.util.Set;

/** What tests in other packages may see of an engine's internals. */
public final class EngineProbe {

    private EngineProbe() {
    }

    /**
     * The live instances an engine saw at its last heartbeat.
     * @param engine the engine
     * @return the instances, itself included; empty before its first heartbeat
     */
    public static Set<String> liveInstances(ViewMaterializer engine) {
        return engine.ownership().liveInstances();
    }

    /**
     * Stops an engine as a killed process would: no last checkpoint, no leave, queued work dropped.
     * @param engine the engine
     */
    public static void crash(ViewMaterializer engine) {
        engine.crash();
    }
}
