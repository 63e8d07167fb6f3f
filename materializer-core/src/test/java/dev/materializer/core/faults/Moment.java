package dev.materializer.core.faults;

import java.time.Duration;
import java.util.SplittableRandom;

/**
 * Where in its work a node is when a fault strikes, after writes it is to hear. The seed says which
 * ({@link #of}), so the seeds of a build already reach several, and a soak reaches each often.
 */
enum Moment {

    /** Right after the writes: the node may not have heard them. */
    RIGHT_AFTER_THE_WRITES,

    /** The node heard every write; no pass ran for them yet. */
    HEARD,

    /** The node heard every write and its passes for them have just started. */
    PASSES_STARTED,

    /** The node heard every write and its passes for them ran; no checkpoint was saved since. */
    PASSED,

    /** The node heard every write, its passes ran, and each stream saved a checkpoint since. */
    CHECKPOINTED;

    /** The moment of a seed: seed N strikes at the moment N modulo their number, so a few seeds reach several. */
    static Moment of(long seed) {
        return values()[(int) Math.floorMod(seed, (long) values().length)];
    }

    static Moment pick(SplittableRandom random) {
        return values()[random.nextInt(values().length)];
    }

    /**
     * Brings the node to this moment.
     * @param heard how many changes the node must have heard by then, since it started
     */
    void reach(FaultRun run, Node node, int heard) {
        if (this == RIGHT_AFTER_THE_WRITES) {
            return;
        }
        node.awaitHeard(heard);
        if (this == HEARD) {
            return;
        }
        if (this == PASSES_STARTED) {
            // Past the debounce: the passes go to the lanes now; the fault does not wait for them.
            run.clock.advance(FaultRun.DEBOUNCE.plusMillis(1));
            return;
        }
        // Past the max delay: the passes ran.
        run.advance((int) (Duration.ofSeconds(1).toMillis() / FaultRun.STEP.toMillis()) + 1);
        node.drain();
        if (this == CHECKPOINTED) {
            run.awaitCheckpointsSince(node, run.clock.now());
        }
    }
}
