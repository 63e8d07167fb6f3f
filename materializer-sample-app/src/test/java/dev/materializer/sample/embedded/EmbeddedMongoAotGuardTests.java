package dev.materializer.sample.embedded;

import org.junit.jupiter.api.Test;

import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Under AOT the embedded server was chosen at build time: a server named at run time is refused with
 * what to do, never ignored. On the JVM without AOT the condition decides at run time, so nothing is
 * refused.
 */
class EmbeddedMongoAotGuardTests {

    @Test
    void underAotAServerNamedAtRunTimeIsRefusedSayingWhatToDo() {
        MockEnvironment environment = new MockEnvironment().withProperty("spring.mongodb.uri", "mongodb://db:27017/shop");
        assertThatIllegalStateException()
            .isThrownBy(() -> EmbeddedMongoAutoConfiguration.requireNoServerNamedAtRunTime(environment, true))
            .withMessageContaining("AOT-processed without a MongoDB server named")
            .withMessageContaining("Build the application with the server named");
        MockEnvironment byHost = new MockEnvironment().withProperty("spring.mongodb.host", "db");
        assertThatIllegalStateException()
            .isThrownBy(() -> EmbeddedMongoAutoConfiguration.requireNoServerNamedAtRunTime(byHost, true));
    }

    @Test
    void withoutAServerNamedOrWithoutAotNothingIsRefused() {
        assertThatNoException().isThrownBy(
                () -> EmbeddedMongoAutoConfiguration.requireNoServerNamedAtRunTime(new MockEnvironment(), true));
        MockEnvironment named = new MockEnvironment().withProperty("spring.mongodb.uri", "mongodb://db:27017/shop");
        assertThatNoException().isThrownBy(() -> EmbeddedMongoAutoConfiguration.requireNoServerNamedAtRunTime(named, false));
    }
}
