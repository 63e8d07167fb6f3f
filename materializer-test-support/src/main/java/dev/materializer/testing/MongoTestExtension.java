package dev.materializer.testing;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

import com.mongodb.client.MongoDatabase;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives each test a fresh database on the server its class names, drops it after the test, and
 * skips — with the reason — the tests whose server is missing or lacks a capability they need.
 */
final class MongoTestExtension implements ExecutionCondition, ParameterResolver, AfterEachCallback {

    private static final Logger log = LoggerFactory.getLogger(MongoTestExtension.class);

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
        .create(MongoTestExtension.class);

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        MongoKind kind = kindOf(context);
        MongoServers.Available available = MongoServers.get(kind);
        MongoServers.RunningServer server = available.server();
        if (server == null) {
            return skip(context, "Skipped: " + available.reason());
        }
        Set<Capability> missing = EnumSet.noneOf(Capability.class);
        for (Capability needed : required(context)) {
            if (!server.capabilities().contains(needed)) {
                missing.add(needed);
            }
        }
        if (!missing.isEmpty()) {
            List<String> names = new ArrayList<>();
            missing.forEach(capability -> names.add(capability.description()));
            return skip(context, "Skipped: needs " + String.join(", ", names) + "; " + server.description()
                    + " does not offer it");
        }
        return ConditionEvaluationResult.enabled("runs on " + server.description());
    }

    /** Says the reason on the console once per class, besides the report, so a reader of the build sees it. */
    private static ConditionEvaluationResult skip(ExtensionContext context, String reason) {
        if (context.getTestMethod().isEmpty()) {
            log.warn("{}: {}", context.getDisplayName(), reason);
        }
        return ConditionEvaluationResult.disabled(reason);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == TestMongo.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext context) {
        MongoServers.RunningServer server = MongoServers.get(kindOf(context)).server();
        if (server == null) {
            throw new ParameterResolutionException("no MongoDB server of kind " + kindOf(context));
        }
        ExtensionContext.Store store = context.getStore(NAMESPACE);
        return store.computeIfAbsent("mongo", key -> {
            String name = "mt_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            MongoDatabase database = server.client().getDatabase(name);
            return new TestMongo(server.kind(), server.connectionString(), server.client(), database,
                    server.capabilities());
        }, TestMongo.class);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        TestMongo mongo = context.getStore(NAMESPACE).remove("mongo", TestMongo.class);
        if (mongo != null) {
            mongo.database().drop();
        }
    }

    private static MongoKind kindOf(ExtensionContext context) {
        Optional<Class<?>> testClass = context.getTestClass();
        return testClass.flatMap(type -> AnnotationSupport.findAnnotation(type, MongoTest.class))
            .map(MongoTest::value)
            .orElse(MongoKind.IN_PROCESS);
    }

    private static Set<Capability> required(ExtensionContext context) {
        Set<Capability> required = EnumSet.noneOf(Capability.class);
        context.getTestClass()
            .flatMap(type -> AnnotationSupport.findAnnotation(type, RequiresCapability.class))
            .ifPresent(annotation -> required.addAll(List.of(annotation.value())));
        context.getTestMethod()
            .flatMap(method -> AnnotationSupport.findAnnotation(method, RequiresCapability.class))
            .ifPresent(annotation -> required.addAll(List.of(annotation.value())));
        return required;
    }
}
