package dev.materializer.core.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A differential run: random views of the shapes the docs support ({@link RandomViews}) over orders
 * whose ids and keys mix types ({@link MixedKeys}) beside the shop's, random edits of their
 * lifecycle (add, new pipeline, retarget, move to another tenant, delete) interleaved with random
 * writes, on one instance or three, with a restart (a crash, or a graceful stop) on some seeds.
 * On some seeds the generation grace is short (1 s), so sweeps and the removal of the rows of views
 * that left happen during the run. Every view, at every convergence, must equal a fresh run of its
 * pipeline.
 */
final class DifferentialViews implements FaultScenario {

    static final Duration SHORT_GRACE = Duration.ofSeconds(1);

    @Override
    public void play(FaultRun run) throws InterruptedException {
        // On some seeds a short grace: superseded versions and the rows of views that left go during the run.
        boolean shortGrace = run.random.nextBoolean();
        if (shortGrace) {
            run.generationGrace(SHORT_GRACE);
        }
        run.note("generation grace " + run.generationGrace());
        run.shop.seedData();
        MixedKeys mixed = new MixedKeys(run);
        mixed.writes(4 + run.random.nextInt(6));
        RandomViews views = new RandomViews(run);
        views.defineSome();
        List<Node> nodes = new ArrayList<>(Lifecycle.start(run, run.random.nextBoolean() ? 3 : 1));
        run.note(views.size() + " random view(s)");
        run.converge("the first start", views.names(), Set.of());

        boolean restarted = false;
        int steps = 8 + run.random.nextInt(12);
        for (int step = 0; step < steps; step++) {
            int roll = run.random.nextInt(100);
            if (roll < 45) {
                int events = run.shop.writes(run.random.nextInt(6)) + mixed.writes(run.random.nextInt(5));
                run.note(events + " change(s)");
            }
            else if (roll < 85) {
                run.note(views.edit());
            }
            else if (roll < 93 || restarted) {
                run.converge("random edits and writes", views.names(), Set.of());
            }
            else {
                restarted = true;
                restart(run, nodes, mixed);
            }
        }
        run.converge("random edits and writes, to the end", views.names(), Set.of());
    }

    /** One instance goes (a crash, or a graceful stop), writes come while it is down, and one starts. */
    private static void restart(FaultRun run, List<Node> nodes, MixedKeys mixed) throws InterruptedException {
        Node going = run.shop.pick(nodes);
        boolean crash = run.random.nextBoolean();
        if (crash) {
            going.crash();
        }
        else {
            going.stop();
        }
        nodes.remove(going);
        int events = run.shop.writes(run.random.nextInt(4)) + mixed.writes(run.random.nextInt(3));
        String id = run.random.nextBoolean() ? going.id : going.id + "-new";
        nodes.add(run.node(id).start());
        run.note(going.id + (crash ? " crashed" : " stopped") + ", " + events + " change(s) while down, " + id + " started");
    }
}
