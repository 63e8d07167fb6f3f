package dev.materializer.core.view;

import java.util.List;

/**
 * What a view document says about incremental passes, in its optional {@code incremental} field.
 * Parsed and checked for form by {@link ViewDefinitionParser}; whether a declared key is the key the
 * pipeline really has is checked where the pipeline is analysed ({@code dev.materializer.core.incremental}),
 * which this package does not depend on.
 *
 * <ul>
 * <li>field absent, or {@code incremental: true}: {@link Mode#AUTO}, the analysis decides;</li>
 * <li>{@code incremental: false}: {@link Mode#OFF}, every pass recomputes the whole partition;</li>
 * <li>{@code incremental: {key: "customer"}} or {@code {key: ["customer", "region"]}}: {@link Mode#KEY},
 *     the user states the source field paths the rows are keyed by; a view whose pipeline does not
 *     prove that key is invalid.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe.
 *
 * @param mode what the document says
 * @param key the declared source field paths, in the order given; empty unless the mode is {@link Mode#KEY}
 */
public record IncrementalDeclaration(Mode mode, List<String> key) {

    /** No declaration: the analysis decides. */
    public static final IncrementalDeclaration AUTO = new IncrementalDeclaration(Mode.AUTO, List.of());

    /** {@code incremental: false}. */
    public static final IncrementalDeclaration OFF = new IncrementalDeclaration(Mode.OFF, List.of());

    /** What a view document may say. */
    public enum Mode {
        /** Nothing, or {@code true}: incremental where the analysis proves a key. */
        AUTO,
        /** {@code false}: never incremental. */
        OFF,
        /** A declared key, which the analysis must confirm. */
        KEY
    }

    /**
     * Copies the key and checks it fits the mode.
     * @throws IllegalArgumentException when a {@link Mode#KEY} has no path or another mode has some
     */
    public IncrementalDeclaration {
        key = List.copyOf(key);
        if ((mode == Mode.KEY) == key.isEmpty()) {
            throw new IllegalArgumentException("a declared key needs paths, and only a declared key has them: "
                    + mode + " " + key);
        }
    }

    /**
     * A declared key.
     * @param paths the source field paths, at least one
     * @return the declaration
     */
    public static IncrementalDeclaration key(List<String> paths) {
        return new IncrementalDeclaration(Mode.KEY, paths);
    }
}
