package dev.materializer.core.faults;

import java.time.Duration;
import java.util.List;

import dev.materializer.core.cluster.Rendezvous;

/**
 * One of two instances is killed under load and a process starts again before the partition lease
 * of the dead one ran out: with the same instance id (a restarted process that keeps its name), or
 * with a new one (a replacement). The other instance runs on and saves its streams' checkpoints
 * before the restart. The changes before, during and after the crash must all reach the views.
 *
 * <p>The instance that dies is the one owning more tenants; a new id is one that takes at least one
 * of its tenants at once, so the replacement owns work the dead one left.
 */
final class CrashAndRestartWithinTheLease implements FaultScenario {

    /** Long enough that the restart comes well within it, even on a slow machine. */
    private static final Duration LEASE = Duration.ofSeconds(3);

    private final boolean sameId;

    CrashAndRestartWithinTheLease(boolean sameId) {
        this.sameId = sameId;
    }

    @Override
    public void play(FaultRun run) {
        run.partitionLease(LEASE);
        run.shop.seedData();
        run.shop.defineViews();
        Node a = run.node("node-a").start();
        Node b = run.node("node-b").start();
        run.awaitLive(a, b);
        run.converge("the start of two instances");
        Node dying = owned(run, a, a, b) >= owned(run, b, a, b) ? a : b;
        Node surviving = dying == a ? b : a;

        int heard = dying.heard();
        int events = run.shop.writes(10 + run.random.nextInt(25));
        Moment moment = Moment.of(run.seed);
        moment.reach(run, dying, heard + events);
        dying.crash();
        run.note(events + " change(s), then " + dying.id + " crashed " + moment);

        // The survivor saves its checkpoints past what the dead one heard, as it does every few seconds.
        run.awaitCheckpointsSince(surviving, run.clock.now());
        run.note(surviving.id + " saved the checkpoints since");
        Shop.OneTenant whileDown = run.shop.insertsIntoOneTenant(run.random.nextInt(6));
        String id = sameId ? dying.id : newIdTakingFrom(run, dying.id, surviving.id);
        Node restarted = run.node(id).start();
        run.note(whileDown + " while down, restarted as " + restarted.id + " within the lease");
        Shop.OneTenant after = run.shop.insertsIntoOneTenant(run.random.nextInt(4));
        run.note(after + " after the restart");

        run.converge("a crash and a restart within the partition lease");
    }

    private static int owned(FaultRun run, Node node, Node... live) {
        List<String> ids = java.util.Arrays.stream(live).map(each -> each.id).toList();
        return (int) run.shop.tenants().stream().filter(tenant -> Rendezvous.owner(tenant, ids).equals(node.id)).count();
    }

    /** The first of node-c, node-d, ... that takes a tenant of the dead instance as soon as it is live. */
    private static String newIdTakingFrom(FaultRun run, String dead, String survivor) {
        for (char c = 'c'; c <= 'z'; c++) {
            String candidate = "node-" + c;
            for (String tenant : run.shop.tenants()) {
                if (Rendezvous.owner(tenant, List.of(dead, survivor)).equals(dead)
                        && Rendezvous.owner(tenant, List.of(dead, survivor, candidate)).equals(candidate)) {
                    return candidate;
                }
            }
        }
        return "node-c";
    }
}
