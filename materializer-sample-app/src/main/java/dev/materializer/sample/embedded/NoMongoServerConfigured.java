package dev.materializer.sample.embedded;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when the application's configuration names no MongoDB server (no URI, no host). */
class NoMongoServerConfigured implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return !context.getEnvironment().containsProperty("spring.mongodb.uri")
                && !context.getEnvironment().containsProperty("spring.mongodb.host");
    }
}
