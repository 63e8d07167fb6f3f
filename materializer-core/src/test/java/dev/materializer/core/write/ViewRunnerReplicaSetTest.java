package dev.materializer.core.write;

import java.time.Duration;

import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PassOutcome;
import dev.materializer.core.PassReport;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoTest;
import dev.materializer.testing.TestMongo;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs of views on a real replica set, where small diffs are written in one transaction. */
@MongoTest(MongoKind.REPLICA_SET)
class ViewRunnerReplicaSetTest extends ViewRunnerContract {

    /** The in-process server does not enforce {@code maxTimeMS}; MongoDB does. */
    @Test
    void aPipelineOverMaxTimeErrorsTheView(TestMongo mongo) {
        ViewFixture fixture = new ViewFixture(mongo,
                MaterializerOptions.builder().instanceId("test").maxTime(Duration.ofMillis(200)).build());
        fixture.order(1, "acme", "north", 10);
        ViewDefinition view = fixture.view("slow", "acme", "{$project: {spin: {$function: {lang: 'js', args: [], "
                + "body: 'function() { var end = Date.now() + 5000; while (Date.now() < end) {} return 1; }'}}}}");

        PassReport report = fixture.runner().run(view);

        assertThat(report.outcome()).isEqualTo(PassOutcome.ERRORED);
        assertThat(report.error()).startsWith("the pipeline failed: ").containsIgnoringCase("time limit");
    }
}
