package dev.materializer.core.faults;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Two view documents whose ids differ by type only — the string {@code "1"} and the number
 * {@code 1} — are two views: both run and converge, whatever writes come.
 */
final class ViewIdsThatReadAlike implements FaultScenario {

    @Override
    public void play(FaultRun run) {
        run.shop.seedData();
        run.shop.defineViews();
        run.shop.defineView("1", "t0", List.of(Shop.ORDERS), "oneText", "{$group: {_id: '$product', n: {$sum: 1}}}");
        run.shop.defineView(1, "t1", List.of(Shop.ORDERS), "oneNumber", "{$group: {_id: '$status', n: {$sum: 1}}}");
        run.node("node-a").start();

        int events = run.shop.writes(10 + run.random.nextInt(20));
        run.note("views \"1\" of t0 and 1 of t1; " + events + " change(s)");

        Set<String> mustConverge = new LinkedHashSet<>(run.shop.viewNames());
        // The string "1" reads as a number, so its text is quoted.
        mustConverge.add("t0/\"1\"");
        mustConverge.add("t1/1 (int32)");
        run.converge("views whose ids read alike as text", mustConverge, Set.of());
    }
}
