package dev.materializer.core.write;

/**
 * A pass that gives way to another one (a live lease, a lost lease, a flip or a write conflict):
 * no error of the view, a later pass follows. The message says why.
 */
final class PassSupersededException extends Exception {

    private static final long serialVersionUID = 1L;

    PassSupersededException(String message) {
        super(message);
    }
}
