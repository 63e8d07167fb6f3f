package dev.materializer.sample.embedded;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when the application's configuration names no MongoDB server (no URI, no host). */
class NoMongoServerConfigured implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return !namesAServer(context.getEnvironment());
    }

    /** Whether the configuration names a MongoDB server: a URI or a host. */
    static boolean namesAServer(Environment environment) {
        return environment.containsProperty("spring.mongodb.uri") || environment.containsProperty("spring.mongodb.host");
    }
}
