package dev.materializer.spring.endpoint;

import java.time.Instant;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * How the descriptors write an enum and an instant in their JSON: the enum's name in lower case, the
 * instant in ISO-8601 (absent when null).
 */
final class DescriptorText {

    static String text(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    static @Nullable String text(@Nullable Instant instant) {
        return (instant != null) ? instant.toString() : null;
    }
}
