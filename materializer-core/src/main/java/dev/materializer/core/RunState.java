package dev.materializer.core;

/**
 * What the engine knows of a view at run time. The {@linkplain #value() value} is the word users
 * see in the snapshot and the meters; two states that block a view for different reasons show as
 * the same word but free the view differently.
 */
enum RunState {

    /** Registered, not run yet (or freed from a block, waiting for its run). */
    PENDING("pending"),

    /** The last run applied the pipeline's result. */
    OK("ok"),

    /** The last run failed for a reason of the view; the status says why. */
    ERRORED("errored"),

    /** In a dependency cycle of its partition: it does not run until the cycle breaks. */
    CYCLE("cycle"),

    /**
     * Names a target that another view document of its partition holds, or that several name and
     * none holds yet (see {@link TargetClaims}): it does not run until that changes.
     */
    TARGET_SHARED("errored");

    private final String value;

    RunState(String value) {
        this.value = value;
    }

    /** The word shown in snapshots and meters. */
    String value() {
        return value;
    }

    /** Whether the view is held back from running (a cycle, a shared target). */
    boolean blocked() {
        return this == CYCLE || this == TARGET_SHARED;
    }
}
