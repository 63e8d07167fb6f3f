package dev.materializer.core.faults;

import java.util.Set;

import dev.materializer.core.engine.EngineProbe;

/**
 * Two instances share the partitions; one of them dies while partitions change hands. On odd seeds
 * the instance handing over dies in the middle of its graceful stop (intake stopped, not yet left),
 * so the other takes its partitions when its lease runs out; on even seeds the instance taking over
 * dies right after it took them, before its catch-up ran, and a third instance starts.
 */
final class AnInstanceDiesMidHandover implements FaultScenario {

    @Override
    public void play(FaultRun run) throws InterruptedException {
        run.shop.seedData();
        run.shop.defineViews();
        Node a = run.node("node-a").start();
        Node b = run.node("node-b").start();
        run.awaitLive(a, b);
        run.converge("the start of two instances");

        int heardA = a.heard();
        int heardB = b.heard();
        int events = run.shop.writes(10 + run.random.nextInt(20));
        Moment moment = Moment.of(run.seed);
        moment.reach(run, a, heardA + events);
        if (moment != Moment.RIGHT_AFTER_THE_WRITES) {
            b.awaitHeard(heardB + events);
        }
        // Odd seeds: the instance handing over dies; even seeds: the one taking over.
        if (run.seed % 2 != 0) {
            a.engine.stopIntake();
            a.crash();
            run.note(events + " change(s), node-a began to stop " + moment + " and died before it left");
            Shop.OneTenant whileDying = run.shop.insertsIntoOneTenant(run.random.nextInt(6));
            run.note(whileDying + " while node-b waits for node-a's lease to run out");
        }
        else {
            a.stop();
            run.note(events + " change(s), node-a stopped " + moment + " and left");
            Shop.OneTenant whileHanding = run.shop.insertsIntoOneTenant(run.random.nextInt(6));
            // node-b's next heartbeat sees node-a gone and takes its partitions; it dies right then.
            run.clock.advance(run.partitionLease().dividedBy(3));
            Node.waitFor("node-b to see node-a gone")
                .until(() -> EngineProbe.liveInstances(b.engine).equals(Set.of("node-b")));
            b.crash();
            run.note(whileHanding + ", node-b took the partitions and died before its catch-up ran");
            Shop.OneTenant whileDown = run.shop.insertsIntoOneTenant(run.random.nextInt(6));
            run.node("node-c").start();
            run.note(whileDown + " while no instance ran, node-c started");
        }
        run.converge("an instance died mid-handover");
    }
}
