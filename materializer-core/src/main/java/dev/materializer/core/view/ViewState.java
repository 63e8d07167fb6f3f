package dev.materializer.core.view;

import org.jspecify.annotations.Nullable;

/** The state of a view as written in its status field. */
public enum ViewState {

    /** The last run succeeded: the target holds the pipeline's result. */
    OK("ok"),

    /** The view cannot run, or its last run failed; {@code lastError} says why. */
    ERRORED("errored"),

    /** The view is part of a dependency cycle in its partition and does not run. */
    CYCLE("cycle");

    private final String value;

    ViewState(String value) {
        this.value = value;
    }

    /** The value stored in the status field's {@code state}. */
    public String value() {
        return value;
    }

    /**
     * The state of a stored value.
     * @param value the stored {@code state}, possibly absent
     * @return the state, or null for an absent or unknown value
     */
    public static @Nullable ViewState fromValue(@Nullable String value) {
        for (ViewState state : values()) {
            if (state.value.equals(value)) {
                return state;
            }
        }
        return null;
    }
}
