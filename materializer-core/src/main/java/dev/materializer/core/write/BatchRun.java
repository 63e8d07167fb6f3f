package dev.materializer.core.write;

import java.util.List;
import java.util.Map;

import dev.materializer.core.PassReport;
import dev.materializer.core.ViewKey;

/**
 * What a batched pass did: the report of each view it ran, and the members it handed back untouched
 * for the caller to run alone (see {@link ViewRunner#runBatch}).
 *
 * @param reports per view it ran, its report ({@code CHANGED}, {@code UNCHANGED} or {@code SUPERSEDED})
 * @param handedBack the members it did not run: nothing of theirs was written that a reader sees
 */
public record BatchRun(Map<ViewKey, PassReport> reports, List<BatchMember> handedBack) {

    /** Copies the map and the list so the record stays immutable. */
    public BatchRun {
        reports = Map.copyOf(reports);
        handedBack = List.copyOf(handedBack);
    }
}
