package dev.materializer.spring.autoconfigure;

import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import com.mongodb.client.MongoClient;
import dev.materializer.core.MaterializerOptions;
import dev.materializer.spring.testing.RecordingMaterializerFactory;
import dev.materializer.testing.MongoKind;
import dev.materializer.testing.MongoServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/** How {@code materializer.*} maps onto the engine's options, and how a bad value fails the start. */
class MaterializerPropertiesTests {

    private final RecordingMaterializerFactory factory = new RecordingMaterializerFactory();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MaterializerAutoConfiguration.class))
        .withBean(MaterializerFactory.class, () -> this.factory);

    private ApplicationContextRunner withMongoClient() {
        return this.runner.withBean(MongoClient.class, () -> mock(MongoClient.class))
            .withPropertyValues("materializer.database=shop");
    }

    @Test
    void theDefaultsOfThePropertiesAreTheDefaultsOfTheCore() {
        MaterializerProperties properties = new MaterializerProperties();
        MaterializerOptions core = MaterializerOptions.defaults();
        assertThat(properties.isEnabled()).isTrue();
        assertThat(properties.getDatabase()).isNull();
        assertThat(properties.getInstanceId()).isNull();
        assertThat(properties.getViewsCollection()).isEqualTo(core.viewsCollection());
        assertThat(properties.getPartitionField()).isEqualTo(core.partitionField());
        assertThat(properties.getStatusField()).isEqualTo(core.statusField());
        assertThat(properties.getCheckpointsCollection()).isEqualTo(core.checkpointsCollection());
        assertThat(properties.getDebounce()).isEqualTo(core.debounce());
        assertThat(properties.getRewatch()).isEqualTo(core.rewatch());
        assertThat(properties.getMaxBackoff()).isEqualTo(core.maxBackoff());
        assertThat(properties.getMaxTime()).isEqualTo(core.maxTime());
        assertThat(properties.getMaxRows()).isEqualTo(core.maxRows());
        assertThat(properties.getMaxTransactionRows()).isEqualTo(core.maxTransactionRows());
        assertThat(properties.getGenerationGrace()).isEqualTo(core.generationGrace());
        assertThat(properties.getPassLease()).isEqualTo(core.passLease());
        assertThat(properties.getPartitionLease()).isEqualTo(core.partitionLease());
        assertThat(properties.getMaxConcurrentPasses()).isEqualTo(core.maxConcurrentPasses());
        assertThat(properties.getPassBatchSize()).isEqualTo(core.passBatchSize());
        assertThat(properties.isEnablePreImages()).as("the users' collections are theirs").isEqualTo(core.enablePreImages())
            .isFalse();
        assertThat(properties.getStorageSources()).isEmpty();
        assertThat(properties.getShutdownTimeout()).as("below Boot's 30s shutdown phase").isEqualTo(Duration.ofSeconds(20));
        assertThat(properties.getReconcile().getInterval()).isEqualTo(core.reconcileInterval());
        assertThat(properties.getReconcile().getMaxPerSecond()).isEqualTo(core.reconcileMaxPerSecond());
    }

    @Test
    void everyOptionOfTheCoreThatIsAValueHasAProperty() {
        // Objects (id strategy, clock, listener) come from beans and customizers, not from text.
        Set<String> notProperties = Set.of("targetId", "clock", "listener");
        Set<String> options = Arrays.stream(MaterializerOptions.class.getRecordComponents())
            .map(RecordComponent::getName)
            .filter(name -> !notProperties.contains(name))
            .collect(Collectors.toSet());
        assertThat(MaterializerOptionsMapping.keysByOption().keySet()).containsExactlyInAnyOrderElementsOf(options);
    }

    @Test
    void everyKeyMapsOntoItsOption() {
        withMongoClient()
            .withPropertyValues("materializer.views-collection=views", "materializer.partition-field=tenant",
                    "materializer.status-field=status", "materializer.checkpoints-collection=checkpoints",
                    "materializer.debounce=250ms", "materializer.rewatch=2s", "materializer.max-backoff=1m",
                    "materializer.max-time=45s", "materializer.max-rows=5000", "materializer.max-transaction-rows=50",
                    "materializer.generation-grace=2m", "materializer.pass-lease=90s", "materializer.partition-lease=20s",
                    "materializer.max-concurrent-passes=8", "materializer.pass-batch-size=20", "materializer.instance-id=node-1",
                    "materializer.enable-pre-images=true",
                    "materializer.storage-sources.orders=identity", "materializer.shutdown-timeout=5s",
                    "materializer.reconcile.interval=30m", "materializer.reconcile.max-per-second=0.5")
            .run(context -> {
                MaterializerOptions options = this.factory.options();
                assertThat(options.viewsCollection()).isEqualTo("views");
                assertThat(options.partitionField()).isEqualTo("tenant");
                assertThat(options.statusField()).isEqualTo("status");
                assertThat(options.checkpointsCollection()).isEqualTo("checkpoints");
                assertThat(options.debounce()).isEqualTo(Duration.ofMillis(250));
                assertThat(options.rewatch()).isEqualTo(Duration.ofSeconds(2));
                assertThat(options.maxBackoff()).isEqualTo(Duration.ofMinutes(1));
                assertThat(options.maxTime()).isEqualTo(Duration.ofSeconds(45));
                assertThat(options.maxRows()).isEqualTo(5000);
                assertThat(options.maxTransactionRows()).isEqualTo(50);
                assertThat(options.generationGrace()).isEqualTo(Duration.ofMinutes(2));
                assertThat(options.passLease()).isEqualTo(Duration.ofSeconds(90));
                assertThat(options.partitionLease()).isEqualTo(Duration.ofSeconds(20));
                assertThat(options.maxConcurrentPasses()).isEqualTo(8);
                assertThat(options.passBatchSize()).isEqualTo(20);
                assertThat(options.enablePreImages()).isTrue();
                assertThat(options.instanceId()).isEqualTo("node-1");
                assertThat(options.storageSources()).containsOnlyKeys("orders");
                assertThat(options.reconcileInterval()).isEqualTo(Duration.ofMinutes(30));
                assertThat(options.reconcileMaxPerSecond()).isEqualTo(0.5);
                assertThat(this.factory.database()).isEqualTo("shop");
                assertThat(context.getBean(MaterializerLifecycle.class)).extracting("shutdownTimeout")
                    .isEqualTo(Duration.ofSeconds(5));
            });
    }

    @Test
    void withoutPropertiesTheEngineGetsTheCoreDefaultsAndAnInstanceIdOfItsOwn() {
        withMongoClient().run(context -> {
            MaterializerOptions options = this.factory.options();
            MaterializerOptions defaults = MaterializerOptions.defaults();
            // The listener is the starter's Spring event publisher (its own tests say what it hears).
            assertThat(options).usingRecursiveComparison().ignoringFields("instanceId", "listener").isEqualTo(defaults);
            assertThat(options.instanceId()).isNotBlank();
        });
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            materializer.max-rows               | 0        | materializer.max-rows must be between 1 and 10000000, was 0
            materializer.max-transaction-rows   | -1       | materializer.max-transaction-rows must be between 0 and 10000000, was -1
            materializer.max-concurrent-passes  | 0        | materializer.max-concurrent-passes must be between 1 and 256, was 0
            materializer.pass-batch-size        | 501      | materializer.pass-batch-size must be between 1 and 500, was 501
            materializer.debounce               | 2h       | materializer.debounce must be between 0s and 1h, was 2h
            materializer.rewatch                | 0s       | materializer.rewatch must be between 1ms and 1h, was 0s
            materializer.max-backoff            | 100ms    | materializer.max-backoff must be between 1s and 1h, was 100ms
            materializer.max-time               | 25h      | materializer.max-time must be between 1ms and 24h, was 25h
            materializer.generation-grace       | -1s      | materializer.generation-grace must be between 0s and 24h, was -1s
            materializer.pass-lease             | 500ms    | materializer.pass-lease must be between 1s and 24h, was 500ms
            materializer.partition-lease        | 2h       | materializer.partition-lease must be between 1s and 1h, was 2h
            materializer.views-collection       | $views   | materializer.views-collection must be a collection name
            materializer.checkpoints-collection | system.x | materializer.checkpoints-collection must be a collection name
            materializer.partition-field        | a.b      | materializer.partition-field must be a top-level field name
            materializer.status-field           | $status  | materializer.status-field must be a top-level field name
            materializer.status-field           | _part    | materializer.partition-field and materializer.status-field must differ, both were '_part'
            materializer.instance-id            | ' '      | materializer.instance-id must be a non-blank text
            materializer.reconcile.interval     | 31d      | materializer.reconcile.interval must be between 0s and 720h, was 744h
            materializer.reconcile.interval     | -1s      | materializer.reconcile.interval must be between 0s and 720h, was -1s
            materializer.reconcile.max-per-second | 0      | materializer.reconcile.max-per-second must be between 0.01 and 1000, was 0.0
            materializer.reconcile.max-per-second | 1001   | materializer.reconcile.max-per-second must be between 0.01 and 1000, was 1001.0
            materializer.shutdown-timeout       | -1s      | materializer.shutdown-timeout must be zero or more, was -1s
            materializer.database               | a/b      | materializer.database must be a database name
            """)
    void aBadValueFailsTheStartNamingItsKeyAndWhatIsAllowed(String key, String value, String message) {
        withMongoClient().withPropertyValues(key + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining(message);
            InvalidConfigurationPropertyValueException failure = (InvalidConfigurationPropertyValueException) rootCause(
                    context.getStartupFailure());
            String expectedKey = key.equals("materializer.status-field") && value.equals("_part")
                    ? "materializer.partition-field" : key;
            assertThat(failure.getName()).isEqualTo(expectedKey);
        });
    }

    @Test
    void aReconcileIntervalOfZeroTurnsTheReconcilerOffAndIsAccepted() {
        withMongoClient().withPropertyValues("materializer.reconcile.interval=0s").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(this.factory.options().reconcileInterval()).isZero();
        });
    }

    @Test
    void aValueThatLooksLikeAnOptionNameIsNotRewritten() {
        withMongoClient().withPropertyValues("materializer.partition-field=debounce", "materializer.status-field=debounce")
            .run(context -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("materializer.partition-field and materializer.status-field must differ, both were 'debounce'"));
    }

    @Test
    void aNegativeShutdownTimeoutFailsEvenWithAUsersEngine() {
        this.runner.withBean(MongoClient.class, () -> mock(MongoClient.class))
            .withBean(dev.materializer.core.Materializer.class, dev.materializer.spring.testing.RecordingMaterializer::new)
            .withPropertyValues("materializer.shutdown-timeout=-5s")
            .run(context -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("materializer.shutdown-timeout must be zero or more, was -5s"));
    }

    @Test
    void theDatabaseIsMaterializerDatabaseWhenSet() {
        this.runner.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class))
            .withPropertyValues("spring.mongodb.uri=" + inProcessUri("fromUri"), "spring.mongodb.database=fromProperty",
                    "materializer.database=fromMaterializer")
            .run(context -> assertThat(this.factory.database()).isEqualTo("fromMaterializer"));
    }

    @Test
    void theDatabaseDefaultsToSpringMongodbDatabase() {
        this.runner.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class))
            .withPropertyValues("spring.mongodb.uri=" + inProcessUri("fromUri"), "spring.mongodb.database=fromProperty")
            .run(context -> assertThat(this.factory.database()).isEqualTo("fromProperty"));
    }

    @Test
    void theDatabaseDefaultsToTheDatabaseOfTheUri() {
        this.runner.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class))
            .withPropertyValues("spring.mongodb.uri=" + inProcessUri("fromUri"))
            .run(context -> assertThat(this.factory.database()).isEqualTo("fromUri"));
    }

    @Test
    void theDatabaseDefaultsToTheDatabaseOfTheConnectionDetails() {
        this.runner.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class))
            .withBean(org.springframework.boot.mongodb.autoconfigure.MongoConnectionDetails.class,
                    () -> () -> new com.mongodb.ConnectionString(inProcessUri("fromDetails")))
            .run(context -> assertThat(this.factory.database()).isEqualTo("fromDetails"));
    }

    @Test
    void withoutAnyDatabaseTheStartFailsNamingMaterializerDatabase() {
        this.runner.withBean(MongoClient.class, () -> mock(MongoClient.class))
            .run(context -> assertThat(context.getStartupFailure()).rootCause()
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("materializer.database is not set"));
    }

    @Test
    void durationsAreSaidAsInProperties() {
        assertThat(MaterializerOptionsMapping.readable(Duration.ZERO)).isEqualTo("0s");
        assertThat(MaterializerOptionsMapping.readable(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(MaterializerOptionsMapping.readable(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(MaterializerOptionsMapping.readable(Duration.ofMinutes(5))).isEqualTo("5m");
        assertThat(MaterializerOptionsMapping.readable(Duration.ofDays(1))).isEqualTo("24h");
        assertThat(MaterializerOptionsMapping.readable(Duration.ofNanos(10))).isEqualTo("PT0.00000001S");
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        return cause;
    }

    private static String inProcessUri(String database) {
        MongoServers.RunningServer server = MongoServers.get(MongoKind.IN_PROCESS).server();
        assertThat(server).as("the in-process MongoDB server").isNotNull();
        return "mongodb://" + server.connectionString().getHosts().get(0) + "/" + database;
    }
}
