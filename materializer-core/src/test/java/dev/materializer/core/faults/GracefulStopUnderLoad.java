package dev.materializer.core.faults;

/**
 * The graceful stop of a host while writes go on: intake stops, the node still hears writes,
 * drains, closes; writes go on while it is down; it starts again. What it heard after the intake
 * stopped, and what happened while it was down, must reach the views after the restart.
 */
final class GracefulStopUnderLoad implements FaultScenario {

    @Override
    public void play(FaultRun run) throws InterruptedException {
        run.shop.seedData();
        run.shop.defineViews();
        Node first = run.node("node-a").start();
        run.converge("the first start");

        int heardAtStart = first.heard();
        int before = run.shop.writes(run.random.nextInt(15));
        Moment moment = Moment.of(run.seed);
        moment.reach(run, first, heardAtStart + before);
        first.engine.stopIntake();
        int heard = first.heard();
        int duringStop = run.shop.writes(5 + run.random.nextInt(20));
        // The node hears them although it takes no more work: that is the load a stop meets.
        first.awaitHeard(heard + duringStop);
        if (!first.engine.drain(Node.WAIT)) {
            throw new AssertionError("node-a did not drain after stopIntake");
        }
        first.close();
        run.note(before + " change(s), stopIntake " + moment + ", " + duringStop
                + " change(s) heard after stopIntake, drained, closed");

        Shop.OneTenant whileDown = run.shop.insertsIntoOneTenant(run.random.nextInt(6));
        run.node("node-a").start();
        run.note(whileDown + " while down, restarted");

        run.converge("a graceful stop under load and a restart");
    }
}
