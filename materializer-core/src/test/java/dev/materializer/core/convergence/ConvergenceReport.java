package dev.materializer.core.convergence;

import java.util.List;

import org.bson.BsonDocument;

/**
 * What a {@link ConvergenceChecker} found: the views whose rows differ from a fresh run of their
 * pipeline, the views it compared and found equal, and the views it did not compare, with why.
 *
 * @param divergences the views whose current generation differs from a fresh run
 * @param converged the views whose current generation equals a fresh run
 * @param unchecked the views not compared (errored, in a cycle, never run, not runnable)
 */
public record ConvergenceReport(List<Divergence> divergences, List<String> converged, List<Unchecked> unchecked) {

    /** How many rows of each side a description shows before it says "and N more". */
    private static final int SHOWN_ROWS = 5;

    /** Copies the lists so the report stays as it was found. */
    public ConvergenceReport {
        divergences = List.copyOf(divergences);
        converged = List.copyOf(converged);
        unchecked = List.copyOf(unchecked);
    }

    /** Whether no compared view differs from its pipeline. */
    public boolean hasNoDivergence() {
        return divergences.isEmpty();
    }

    /** The names of the views not compared, for assertions on which views may be left out. */
    public List<String> uncheckedViews() {
        return unchecked.stream().map(Unchecked::view).toList();
    }

    /** A description for failure messages: every divergence with a few of its rows, then what was left out. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        text.append(divergences.size()).append(" divergence(s), ").append(converged.size()).append(" view(s) equal, ")
            .append(unchecked.size()).append(" not checked");
        for (Divergence divergence : divergences) {
            text.append("\n  ").append(divergence.view()).append(": ").append(divergence.missing().size())
                .append(" row(s) missing, ").append(divergence.extra().size()).append(" extra");
            rows(text, "missing", divergence.missing());
            rows(text, "extra", divergence.extra());
        }
        for (Unchecked view : unchecked) {
            text.append("\n  not checked ").append(view.view()).append(": ").append(view.reason());
        }
        return text.toString();
    }

    private static void rows(StringBuilder text, String side, List<BsonDocument> rows) {
        for (int i = 0; i < Math.min(SHOWN_ROWS, rows.size()); i++) {
            text.append("\n    ").append(side).append(' ').append(rows.get(i).toJson());
        }
        if (rows.size() > SHOWN_ROWS) {
            text.append("\n    ... and ").append(rows.size() - SHOWN_ROWS).append(" more ").append(side);
        }
    }

    @Override
    public String toString() {
        return describe();
    }

    /**
     * A view whose rows differ from a fresh run of its pipeline. Rows are shown as the pipeline gives
     * them: the row's own {@code _id} and its content, without the engine's fields.
     *
     * @param view the view, as {@code partition/id}
     * @param missing rows of the fresh run the view lacks (with their multiplicity)
     * @param extra rows of the view the fresh run lacks (with their multiplicity)
     */
    public record Divergence(String view, List<BsonDocument> missing, List<BsonDocument> extra) {

        /** Copies the lists. */
        public Divergence {
            missing = List.copyOf(missing);
            extra = List.copyOf(extra);
        }
    }

    /**
     * A view the checker did not compare.
     *
     * @param view the view, as {@code partition/id}
     * @param reason why: its state and last error, a cycle, no status yet, or why its pipeline cannot run
     */
    public record Unchecked(String view, String reason) {
    }
}
