package dev.materializer.core.write;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds a writer at one point of its attempt until the test lets it go, once: at the moment it holds
 * the lease (group 0), or before it writes a given group. Stands in for a process paused past its
 * lease (a long GC, a stopped VM).
 */
final class WriterGate implements VersionedWriter.Pauses {

    private final int group;

    private final CountDownLatch held = new CountDownLatch(1);

    private final CountDownLatch released = new CountDownLatch(1);

    private final java.util.function.LongConsumer beforeUndo;

    /** @param group the group to stop before, from 1; 0 stops once the lease is taken */
    WriterGate(int group) {
        this(group, attempt -> {
        });
    }

    /**
     * @param group the group to stop before, from 1; 0 stops once the lease is taken
     * @param beforeUndo what to look at once the writer knows it lost the view, before it undoes its number
     */
    WriterGate(int group, java.util.function.LongConsumer beforeUndo) {
        this.group = group;
        this.beforeUndo = beforeUndo;
    }

    @Override
    public void beforeUndo(long attempt) {
        beforeUndo.accept(attempt);
    }

    @Override
    public void leaseTaken() {
        if (group == 0) {
            hold();
        }
    }

    @Override
    public void beforeGroup(int number) {
        if (number == group) {
            hold();
        }
    }

    private void hold() {
        if (held.getCount() == 0) {
            return;
        }
        held.countDown();
        try {
            if (!released.await(1, TimeUnit.MINUTES)) {
                throw new AssertionError("the test never let the writer go");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    void awaitHeld() throws InterruptedException {
        if (!held.await(1, TimeUnit.MINUTES)) {
            throw new AssertionError("the writer never reached the gate");
        }
    }

    void release() {
        released.countDown();
    }
}
