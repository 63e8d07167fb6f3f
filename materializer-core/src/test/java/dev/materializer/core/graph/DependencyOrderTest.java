package dev.materializer.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.ViewKey;
import dev.materializer.core.view.Views;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class DependencyOrderTest {

    @Test
    void noViewsGiveAnEmptyOrder() {
        DependencyOrder order = DependencyOrder.of(List.of());

        assertThat(order.sorted()).isEmpty();
        assertThat(order.cyclic()).isEmpty();
    }

    @Test
    void aChainRunsUpstreamFirst() {
        ViewDefinition daily = view("a-daily", "daily", "orders");
        ViewDefinition monthly = view("b-monthly", "monthly", "daily");
        ViewDefinition yearly = view("0-yearly", "yearly", "monthly");

        DependencyOrder order = DependencyOrder.of(List.of(yearly, monthly, daily));

        assertThat(ids(order)).containsExactly("a-daily", "b-monthly", "0-yearly");
        assertThat(order.cyclic()).isEmpty();
    }

    @Test
    void aDiamondRunsTheTopFirstAndTheBottomLast() {
        ViewDefinition top = view("z-top", "top", "orders");
        ViewDefinition left = view("b-left", "left", "top");
        ViewDefinition right = view("a-right", "right", "top");
        ViewDefinition bottom = view("0-bottom", "bottom", "left", "right");

        DependencyOrder order = DependencyOrder.of(List.of(bottom, left, right, top));

        assertThat(ids(order)).containsExactly("z-top", "a-right", "b-left", "0-bottom");
    }

    @Test
    void independentViewsRunInIdOrder() {
        DependencyOrder order = DependencyOrder.of(List.of(view("c", "c_out", "orders"), view("a", "a_out", "orders"),
                view("b", "b_out", "customers")));

        assertThat(ids(order)).containsExactly("a", "b", "c");
    }

    @Test
    void tiesAmongReadyViewsAreBrokenByIdAtEveryStep() {
        // "m" becomes ready only after "a"; then it still goes before "z", which was ready from the start
        DependencyOrder order = DependencyOrder.of(List.of(view("z", "z_out", "orders"), view("a", "a_out", "orders"),
                view("m", "m_out", "a_out")));

        assertThat(ids(order)).containsExactly("a", "m", "z");
    }

    @Test
    void aViewWhoseTargetNobodyReadsIsSortedLikeAnyOther() {
        DependencyOrder order = DependencyOrder.of(List.of(view("b", "unread", "orders"), view("a", "a_out", "orders")));

        assertThat(ids(order)).containsExactly("a", "b");
        assertThat(order.cyclic()).isEmpty();
    }

    @Test
    void twoViewsWritingTheSameTargetBothRunBeforeItsReader() {
        DependencyOrder order = DependencyOrder.of(List.of(view("a-reader", "report", "shared"),
                view("b", "shared", "orders"), view("c", "shared", "customers")));

        assertThat(ids(order)).containsExactly("b", "c", "a-reader");
    }

    @Test
    void aViewNeverWaitsForItself() {
        // The parser refuses such a view; the order must still not call it a cycle
        ViewDefinition parsed = view("self", "self_out", "orders");
        ViewDefinition readsItsTarget = new ViewDefinition(parsed.id(), parsed.partition(), List.of("orders", "self_out"),
                parsed.pipeline(), "self_out", parsed.sourceFields(), parsed.fingerprint());

        DependencyOrder order = DependencyOrder.of(List.of(readsItsTarget));

        assertThat(ids(order)).containsExactly("self");
        assertThat(order.cyclic()).isEmpty();
    }

    @Test
    void aTwoCycleDoesNotRun() {
        DependencyOrder order = DependencyOrder.of(List.of(view("a", "a_out", "b_out"), view("b", "b_out", "a_out"),
                view("c", "c_out", "orders")));

        assertThat(ids(order)).containsExactly("c");
        assertThat(order.cyclic()).containsExactlyInAnyOrder(key("a"), key("b"));
    }

    @Test
    void aThreeCycleDoesNotRun() {
        DependencyOrder order = DependencyOrder.of(List.of(view("a", "a_out", "c_out"), view("b", "b_out", "a_out"),
                view("c", "c_out", "b_out")));

        assertThat(order.sorted()).isEmpty();
        assertThat(order.cyclic()).containsExactlyInAnyOrder(key("a"), key("b"), key("c"));
    }

    @Test
    void aViewDownstreamOfACycleDoesNotRunEither() {
        DependencyOrder order = DependencyOrder.of(List.of(view("a", "a_out", "orders", "b_out"),
                view("b", "b_out", "a_out"), view("downstream", "d_out", "b_out"), view("free", "f_out", "orders")));

        assertThat(ids(order)).containsExactly("free");
        assertThat(order.cyclic()).containsExactlyInAnyOrder(key("a"), key("b"), key("downstream"));
    }

    @Test
    void aViewUpstreamOfACycleStillRuns() {
        DependencyOrder order = DependencyOrder.of(List.of(view("feeder", "feed", "orders"),
                view("a", "a_out", "feed", "b_out"), view("b", "b_out", "a_out")));

        assertThat(ids(order)).containsExactly("feeder");
        assertThat(order.cyclic()).containsExactlyInAnyOrder(key("a"), key("b"));
    }

    @Test
    void removingAViewBreaksItsCycleAndFreesTheOthers() {
        ViewDefinition a = view("a", "a_out", "orders", "c_out");
        ViewDefinition b = view("b", "b_out", "a_out");
        ViewDefinition c = view("c", "c_out", "b_out");
        ViewDefinition downstream = view("d", "d_out", "b_out");
        assertThat(DependencyOrder.of(List.of(a, b, c, downstream)).sorted()).isEmpty();

        DependencyOrder withoutC = DependencyOrder.of(List.of(a, b, downstream));

        assertThat(ids(withoutC)).containsExactly("a", "b", "d");
        assertThat(withoutC.cyclic()).isEmpty();
    }

    @Test
    void changingTheSourcesOfAViewBreaksItsCycle() {
        ViewDefinition a = view("a", "a_out", "b_out");
        ViewDefinition b = view("b", "b_out", "a_out");
        assertThat(DependencyOrder.of(List.of(a, b)).cyclic()).hasSize(2);

        ViewDefinition aReadingOrders = view("a", "a_out", "orders");
        DependencyOrder order = DependencyOrder.of(List.of(aReadingOrders, b));

        assertThat(ids(order)).containsExactly("a", "b");
        assertThat(order.cyclic()).isEmpty();
    }

    @Test
    void changingTheTargetOfAViewBreaksItsCycle() {
        ViewDefinition a = view("a", "a_out", "b_out");
        ViewDefinition b = view("b", "b_out", "a_out");
        assertThat(DependencyOrder.of(List.of(a, b)).sorted()).isEmpty();

        DependencyOrder order = DependencyOrder.of(List.of(a, view("b", "elsewhere", "a_out")));

        assertThat(ids(order)).containsExactly("a", "b");
        assertThat(order.cyclic()).isEmpty();
    }

    @Test
    void theInputOrderDoesNotChangeTheOutput() {
        List<ViewDefinition> views = new ArrayList<>(List.of(view("top", "top_out", "orders"),
                view("left", "left_out", "top_out"), view("right", "right_out", "top_out", "customers"),
                view("bottom", "bottom_out", "left_out", "right_out"), view("alone", "alone_out", "orders"),
                view("x", "x_out", "y_out"), view("y", "y_out", "x_out")));
        DependencyOrder expected = DependencyOrder.of(views);
        Random random = new Random(42);

        for (int shuffle = 0; shuffle < 50; shuffle++) {
            Collections.shuffle(views, random);
            assertThat(DependencyOrder.of(views)).isEqualTo(expected);
        }
        assertThat(ids(expected)).containsExactly("alone", "top", "left", "right", "bottom");
    }

    @Test
    void idsOfOtherTypesTieBreakByTheirText() {
        ViewDefinition objectIdView = withId(view("ignored", "o_out", "orders"),
                new BsonObjectId(new ObjectId("65e1a0000000000000000001")));
        ViewDefinition numberView = withId(view("ignored", "n_out", "orders"), new BsonInt32(7));

        DependencyOrder order = DependencyOrder.of(List.of(view("b", "b_out", "orders"), objectIdView, numberView));

        assertThat(order.sorted()).extracting(definition -> definition.key().id())
            .containsExactly("65e1a0000000000000000001", "7", "b");
    }

    @Test
    void viewsOfSeveralPartitionsAreRefused() {
        ViewDefinition acme = Views.view("a").partition("acme").definition();
        ViewDefinition globex = Views.view("b").partition("globex").definition();

        assertThatThrownBy(() -> DependencyOrder.of(List.of(acme, globex))).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the views must be of one partition, got 'acme' and 'globex'");
    }

    @Test
    void twoViewsWithTheSameIdAreRefused() {
        assertThatThrownBy(() -> DependencyOrder.of(List.of(view("a", "x", "orders"), view("a", "y", "orders"))))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the views must have distinct ids, got tenant-1/a twice");
    }

    @Test
    void theOrderIsImmutable() {
        DependencyOrder order = DependencyOrder.of(List.of(view("a", "a_out", "orders")));

        assertThatThrownBy(() -> order.sorted().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> order.cyclic().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    static ViewDefinition view(String id, String target, String... sources) {
        return Views.view(id).reads(sources).writes(target).definition();
    }

    private static ViewDefinition withId(ViewDefinition view, BsonValue id) {
        return new ViewDefinition(id, view.partition(), view.collections(), view.pipeline(), view.targetCollection(),
                view.sourceFields(), view.fingerprint());
    }

    private static ViewKey key(String id) {
        return new ViewKey(Views.PARTITION, id);
    }

    private static List<String> ids(DependencyOrder order) {
        return order.sorted().stream().map(view -> view.key().id()).toList();
    }
}
