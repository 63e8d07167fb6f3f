package dev.materializer.core.write;

/**
 * A problem of the view itself — its pipeline, its guard, its limits, a row, its target — that
 * makes the pass {@code errored}. The message becomes the view's {@code lastError}.
 */
class ViewRunException extends Exception {

    private static final long serialVersionUID = 1L;

    ViewRunException(String message) {
        super(message);
    }
}
