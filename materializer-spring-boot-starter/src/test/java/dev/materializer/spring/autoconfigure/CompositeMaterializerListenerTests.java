package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.materializer.core.EngineState;
import dev.materializer.core.MaterializerListener;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.WriteMode;
import dev.materializer.core.ViewKey;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Several listeners behind the engine's one. */
class CompositeMaterializerListenerTests {

    private static final ViewKey VIEW = new ViewKey("acme", "totals");

    @Test
    void noListenersIsTheNoOpListenerAndOneIsItself() {
        Recording only = new Recording("only", new ArrayList<>(), false);
        assertThat(CompositeMaterializerListener.of(List.of())).isSameAs(MaterializerListener.NONE);
        assertThat(CompositeMaterializerListener.of(List.of(only))).isSameAs(only);
    }

    @Test
    void everyEventReachesEveryListenerInOrderEvenWhenOneThrows() {
        List<String> heard = new ArrayList<>();
        MaterializerListener composite = CompositeMaterializerListener
            .of(List.of(new Recording("a", heard, true), new Recording("b", heard, false)));
        PassReport report = new PassReport(VIEW, WriteMode.GENERATION, PassOutcome.CHANGED, 1, 0, Duration.ZERO, null);

        composite.onChange("orders", null);
        composite.onBroadcastEvent("orders");
        composite.onPassStarted(VIEW);
        composite.onPassFinished(report);
        composite.onViewErrored(VIEW, "boom");
        composite.onStreamReopened("orders", "closed");
        composite.onStateChanged(EngineState.RUNNING, null);
        composite.onReconciled(VIEW, new dev.materializer.core.VerifyReport(VIEW, 1, 0, 0, 0, Duration.ZERO, null), false);

        assertThat(heard).containsExactly("a change", "b change", "a broadcast", "b broadcast", "a started", "b started", "a finished", "b finished",
                "a errored", "b errored", "a reopened", "b reopened", "a state", "b state", "a reconciled",
                "b reconciled");
    }

    /** A method the composite does not override is the interface's empty default: its listeners would not hear it. */
    @Test
    void theCompositeForwardsEveryMethodOfTheListener() throws NoSuchMethodException {
        for (java.lang.reflect.Method method : MaterializerListener.class.getMethods()) {
            if (java.lang.reflect.Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            assertThat(CompositeMaterializerListener.class.getMethod(method.getName(), method.getParameterTypes())
                .getDeclaringClass()).as(method.getName()).isEqualTo(CompositeMaterializerListener.class);
        }
    }

    private record Recording(String name, List<String> heard, boolean fails) implements MaterializerListener {

        private void hear(String event) {
            this.heard.add(this.name + " " + event);
            if (this.fails) {
                throw new IllegalStateException("listener " + this.name + " fails");
            }
        }

        @Override
        public void onChange(String source, @Nullable Duration lag) {
            hear("change");
        }

        @Override
        public void onReconciled(ViewKey view, dev.materializer.core.VerifyReport report, boolean drift) {
            hear("reconciled");
        }

        @Override
        public void onBroadcastEvent(String source) {
            hear("broadcast");
        }

        @Override
        public void onPassStarted(ViewKey view) {
            hear("started");
        }

        @Override
        public void onPassFinished(PassReport report) {
            hear("finished");
        }

        @Override
        public void onViewErrored(ViewKey view, String error) {
            hear("errored");
        }

        @Override
        public void onStreamReopened(String collection, String reason) {
            hear("reopened");
        }

        @Override
        public void onStateChanged(EngineState state, @Nullable String reason) {
            hear("state");
        }
    }
}
