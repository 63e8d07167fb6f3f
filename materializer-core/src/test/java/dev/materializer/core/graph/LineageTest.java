package dev.materializer.core.graph;

import java.util.List;

import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.Views;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LineageTest {

    private static ViewDefinition view(String id, String target, String... sources) {
        return Views.view(id).reads(sources).writes(target).definition();
    }

    @Test
    void aViewDependsOnItsSourcesAndOnWhatTheViewsItReadsDependOn() {
        ViewDefinition daily = view("daily", "daily", "orders", "refunds");
        ViewDefinition monthly = view("monthly", "monthly", "daily", "products");
        ViewDefinition report = view("report", "report", "monthly");
        ViewDefinition unrelated = view("stock", "stock", "inventory");

        Lineage lineage = Lineage.of(report, List.of(daily, monthly, report, unrelated));

        assertThat(lineage.collections()).containsExactlyInAnyOrder("monthly", "daily", "products", "orders", "refunds");
        assertThat(lineage.upstream()).containsExactlyInAnyOrder(daily, monthly);
        assertThat(Lineage.of(daily, List.of(daily, monthly, report)).upstream()).isEmpty();
    }

    @Test
    void aCycleEndsTheWalkWhereItCloses() {
        ViewDefinition a = view("a", "a", "b");
        ViewDefinition b = view("b", "b", "a", "orders");

        Lineage lineage = Lineage.of(a, List.of(a, b));

        assertThat(lineage.collections()).containsExactlyInAnyOrder("a", "b", "orders");
        assertThat(lineage.upstream()).containsExactly(b);
    }
}
