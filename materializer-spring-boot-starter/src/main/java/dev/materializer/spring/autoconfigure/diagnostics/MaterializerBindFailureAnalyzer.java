package dev.materializer.spring.autoconfigure.diagnostics;

import java.time.Duration;

import dev.materializer.spring.autoconfigure.MaterializerProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * A {@code materializer.*} value that cannot be read as its type ({@code materializer.debounce=fast})
 * stopped the application: names the key, the value and where it came from, and says what the type
 * takes, ahead of Boot's generic analysis of a binding failure. Values of the right type but out of
 * range are refused later, naming what is allowed, and analysed by Boot.
 */
final class MaterializerBindFailureAnalyzer extends AbstractFailureAnalyzer<BindException> implements Ordered {

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of(MaterializerProperties.PREFIX);

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException cause) {
        ConfigurationProperty property = cause.getProperty();
        if (property == null || !PREFIX.isAncestorOf(property.getName())) {
            return null;
        }
        Class<?> type = cause.getTarget().getType().resolve(Object.class);
        Throwable reason = cause.getCause();
        while (reason != null && reason.getCause() != null) {
            reason = reason.getCause();
        }
        String description = "Invalid value '" + property.getValue() + "' for configuration property '"
                + property.getName() + "'" + (property.getOrigin() != null ? " (" + property.getOrigin() + ")" : "")
                + ": it is not " + what(type) + (reason != null ? " (" + reason.getMessage() + ")" : "") + ".";
        String action = "Set " + property.getName() + " to " + what(type)
                + ". Every materializer.* key, with its default, is in docs/configuration.md.";
        return new FailureAnalysis(description, action, cause);
    }

    private static String what(Class<?> type) {
        if (type == Duration.class) {
            return "a duration, such as 500ms, 5s, 2m or PT5S";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number";
        }
        if (type == double.class || type == Double.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        return "a " + type.getSimpleName();
    }
}
