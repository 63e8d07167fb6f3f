package dev.materializer.core.guard;

/**
 * A pipeline the scope guard refuses: it writes, reads a collection that is not a source of the
 * view, or uses a stage that reads outside the sources. The message becomes the view's
 * {@code lastError}.
 */
public class ScopeViolationException extends Exception {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     * @param message what is refused and where in the pipeline
     */
    public ScopeViolationException(String message) {
        super(message);
    }
}
