package dev.materializer.core;

import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;


/**
 * The state of a view: the one vocabulary of the engine's run time, its snapshots, queries and counts,
 * and the view document's status field.
 *
 * <p>Each state has two words: its {@linkplain #value() value}, shown in snapshots, the endpoint and
 * the meters, and its {@linkplain #storedValue() stored value}, written in the status field's
 * {@code state}. The stored words are a contract with the documents already written: a shared target
 * is stored as {@code errored} (with a {@code lastError} naming the conflict), and a pending view is
 * never stored.
 */
public enum ViewState {

    /** Registered, not run yet (or freed from a block, waiting for its run). */
    PENDING("pending", null),

    /** The last run succeeded: the target holds the pipeline's result. */
    OK("ok", "ok"),

    /** The view cannot run, or its last run failed, for a reason of the view; {@code lastError} says why. */
    ERRORED("errored", "errored"),

    /** The view is part of a dependency cycle in its partition and does not run until the cycle breaks. */
    CYCLE("cycle", "cycle"),

    /**
     * The view names a target that another view document of its partition holds, or that several
     * name and none holds yet: it does not run until that changes. Stored as {@code errored}.
     */
    TARGET_SHARED("target_shared", "errored");

    /** Every state's {@linkplain #value() value}, in the order of the constants. */
    public static final List<String> VALUES = Arrays.stream(values()).map(ViewState::value).toList();

    private final String value;

    private final @Nullable String storedValue;

    ViewState(String value, @Nullable String storedValue) {
        this.value = value;
        this.storedValue = storedValue;
    }

    /** The word shown in snapshots, the endpoint and the meters. */
    public String value() {
        return value;
    }

    /**
     * The word written in the status field's {@code state}.
     * @throws IllegalStateException for {@link #PENDING}, which is never stored
     */
    public String storedValue() {
        if (storedValue == null) {
            throw new IllegalStateException("the state " + value + " is never stored");
        }
        return storedValue;
    }

    /** Whether the view is held back from running (a cycle, a shared target). */
    public boolean blocked() {
        return this == CYCLE || this == TARGET_SHARED;
    }

    /**
     * The state of a shown word.
     * @param value a {@linkplain #value() value}, possibly absent
     * @return the state, or null for an absent or unknown word
     */
    public static @Nullable ViewState fromValue(@Nullable String value) {
        for (ViewState state : values()) {
            if (state.value.equals(value)) {
                return state;
            }
        }
        return null;
    }

    /**
     * The state of a stored word: {@code errored} reads as {@link #ERRORED} (a stored shared target
     * is found again by the run that meets it).
     * @param value the stored {@code state}, possibly absent
     * @return the state, or null for an absent or unknown word
     */
    public static @Nullable ViewState fromStoredValue(@Nullable String value) {
        return value == null ? null : switch (value) {
            case "ok" -> OK;
            case "errored" -> ERRORED;
            case "cycle" -> CYCLE;
            default -> null;
        };
    }
}
