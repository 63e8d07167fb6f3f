package dev.materializer.core.write;

import dev.materializer.core.WriteMode;

/**
 * What a writer did with a view's result.
 *
 * @param mode how it wrote
 * @param changed whether what readers read changed
 * @param rowsWritten rows inserted or replaced
 * @param rowsRemoved rows that the generation readers read lost
 */
record WriteOutcome(WriteMode mode, boolean changed, long rowsWritten, long rowsRemoved) {

    static WriteOutcome unchanged(WriteMode mode) {
        return new WriteOutcome(mode, false, 0, 0);
    }
}
