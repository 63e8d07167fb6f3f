package dev.materializer.core.engine;

import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.write.WriteSettings;

/**
 * The settings each part of the engine reads, taken from the engine's options. Not API: it is public
 * only so the tests of the parts' packages build their parts as the engine does.
 */
public final class EngineSettings {

    private EngineSettings() {
    }

    /**
     * The writers' settings.
     * @param options the engine's options
     * @return the part of them the writers read
     */
    public static WriteSettings write(MaterializerOptions options) {
        return new WriteSettings(options.viewsCollection(), options.partitionField(), options.statusField(),
                options.instanceId(), options.targetId(), options.maxRows(), options.maxTime(),
                options.maxTransactionRows(), options.passLease(), options.generationGrace());
    }
}
