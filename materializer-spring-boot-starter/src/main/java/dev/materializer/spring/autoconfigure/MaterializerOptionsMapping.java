package dev.materializer.spring.autoconfigure;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.materializer.core.MaterializerOptions;
import dev.materializer.core.PartitionMapping;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Maps {@link MaterializerProperties} onto the engine's options and checks them, so a bad value fails
 * the start with the key the user wrote ({@code materializer.max-rows}) rather than the option's name
 * in the core ({@code maxRows}). Boot's failure analyzer of
 * {@link InvalidConfigurationPropertyValueException} then prints the key, the value, where it came
 * from and the reason.
 */
final class MaterializerOptionsMapping {

    /** Each option the properties set, by its name in the core, with its key and how to read its value. */
    private static final Map<String, Property> PROPERTIES = properties();

    private static final Pattern OPTION_NAME = Pattern.compile("\\b[a-z][A-Za-z]*\\b");

    private static final Pattern VALUE_START = Pattern.compile(", (was|both were) ");

    private static final Pattern ISO_DURATION = Pattern.compile("\\bPT[-0-9.HMS]+\\b");

    private final MaterializerProperties properties;

    private final Function<String, @Nullable PartitionMapping> mappingBeans;

    /**
     * @param properties the bound properties
     * @param mappingBeans the {@link PartitionMapping} bean of a name, or null when there is none
     */
    MaterializerOptionsMapping(MaterializerProperties properties, Function<String, @Nullable PartitionMapping> mappingBeans) {
        this.properties = properties;
        this.mappingBeans = mappingBeans;
    }

    /**
     * A builder holding the properties, already checked.
     * @throws InvalidConfigurationPropertyValueException naming the first bad key
     */
    MaterializerOptions.Builder builder() {
        MaterializerOptions.Builder builder = MaterializerOptions.builder();
        MaterializerProperties p = this.properties;
        PropertyMapper map = PropertyMapper.get();
        map.from(p::getViewsCollection).to(builder::viewsCollection);
        map.from(p::getPartitionField).to(builder::partitionField);
        map.from(p::getStatusField).to(builder::statusField);
        map.from(p::getCheckpointsCollection).to(builder::checkpointsCollection);
        map.from(p::getDebounce).to(builder::debounce);
        map.from(p::getRewatch).to(builder::rewatch);
        map.from(p::getMaxBackoff).to(builder::maxBackoff);
        map.from(p::getMaxTime).to(builder::maxTime);
        map.from(p::getMaxRows).to(builder::maxRows);
        map.from(p::getMaxTransactionRows).to(builder::maxTransactionRows);
        map.from(p::getGenerationGrace).to(builder::generationGrace);
        map.from(p::getPassLease).to(builder::passLease);
        map.from(p::getPartitionLease).to(builder::partitionLease);
        map.from(p::getMaxConcurrentPasses).to(builder::maxConcurrentPasses);
        map.from(p::getPassBatchSize).to(builder::passBatchSize);
        map.from(p::isEnablePreImages).to(builder::enablePreImages);
        map.from(p.getReconcile()::getInterval).to(builder::reconcileInterval);
        map.from(p.getReconcile()::getMaxPerSecond).to(builder::reconcileMaxPerSecond);
        map.from(p::getInstanceId).to(builder::instanceId);
        p.getStorageSources().forEach((source, mapping) -> builder.storageSource(source, mapping(source, mapping)));
        requireShutdownTimeout(p.getShutdownTimeout());
        try {
            builder.build();
        }
        catch (IllegalArgumentException ex) {
            throw invalidProperty(ex);
        }
        return builder;
    }

    private PartitionMapping mapping(String source, @Nullable String name) {
        String trimmed = (name != null) ? name.trim() : "";
        if (MaterializerProperties.IDENTITY_MAPPING.equals(trimmed)) {
            return PartitionMapping.IDENTITY;
        }
        PartitionMapping bean = trimmed.isEmpty() ? null : this.mappingBeans.apply(trimmed);
        if (bean == null) {
            String key = storageSourceKey(source);
            throw new InvalidConfigurationPropertyValueException(key, name, key + " must be '"
                    + MaterializerProperties.IDENTITY_MAPPING + "' or the name of a PartitionMapping bean, was '" + name + "'");
        }
        return bean;
    }

    /**
     * The shutdown timeout, checked.
     * @throws InvalidConfigurationPropertyValueException when it is negative
     */
    static Duration requireShutdownTimeout(@Nullable Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            String key = MaterializerProperties.PREFIX + ".shutdown-timeout";
            throw new InvalidConfigurationPropertyValueException(key, timeout,
                    key + " must be zero or more, was " + ((timeout != null) ? readable(timeout) : null));
        }
        return timeout;
    }

    /** The key of a storage source; brackets keep a collection name with dots whole. */
    static String storageSourceKey(String source) {
        String prefix = MaterializerProperties.PREFIX + ".storage-sources";
        return source.matches("[a-z0-9-]+") ? prefix + "." + source : prefix + "[" + source + "]";
    }

    /**
     * Turns the core's message ("maxRows must be between 1 and 10000000, was 0") into one that names the
     * keys ("materializer.max-rows must be between 1 and 10000000, was 0"), and durations as they are
     * written in properties.
     */
    private InvalidConfigurationPropertyValueException invalidProperty(IllegalArgumentException ex) {
        String message = String.valueOf(ex.getMessage());
        // Only the words before the value are names: a value may itself look like an option's name.
        Matcher valueStart = VALUE_START.matcher(message);
        int end = valueStart.find() ? valueStart.start() : message.length();
        Property first = null;
        StringBuilder reason = new StringBuilder();
        Matcher names = OPTION_NAME.matcher(message).region(0, end);
        while (names.find()) {
            Property property = PROPERTIES.get(names.group());
            if (property != null && first == null) {
                first = property;
            }
            names.appendReplacement(reason, Matcher.quoteReplacement(property != null ? property.key() : names.group()));
        }
        names.appendTail(reason);
        if (first == null) {
            // Not an option the properties set: keep the core's words.
            return new InvalidConfigurationPropertyValueException(MaterializerProperties.PREFIX, null, message);
        }
        Object value = first.value().apply(this.properties);
        return new InvalidConfigurationPropertyValueException(first.key(),
                (value instanceof Duration duration) ? readable(duration) : value, readableDurations(reason.toString()));
    }

    private static String readableDurations(String text) {
        Matcher iso = ISO_DURATION.matcher(text);
        StringBuilder result = new StringBuilder();
        while (iso.find()) {
            iso.appendReplacement(result, Matcher.quoteReplacement(readable(Duration.parse(iso.group()))));
        }
        iso.appendTail(result);
        return result.toString();
    }

    /** A duration as a property value: {@code 100ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
    static String readable(Duration duration) {
        if (duration.getNano() % 1_000_000 != 0) {
            return duration.toString();
        }
        long millis = duration.toMillis();
        if (millis == 0) {
            return "0s";
        }
        if (millis % 3_600_000 == 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1_000 == 0) {
            return millis / 1_000 + "s";
        }
        return millis + "ms";
    }

    /** The key of every option the properties set, by its name in the core. */
    static Map<String, String> keysByOption() {
        Map<String, String> keys = new LinkedHashMap<>();
        PROPERTIES.forEach((option, property) -> keys.put(option, property.key()));
        return keys;
    }

    private static Map<String, Property> properties() {
        Map<String, Property> properties = new LinkedHashMap<>();
        add(properties, "viewsCollection", "views-collection", MaterializerProperties::getViewsCollection);
        add(properties, "partitionField", "partition-field", MaterializerProperties::getPartitionField);
        add(properties, "statusField", "status-field", MaterializerProperties::getStatusField);
        add(properties, "checkpointsCollection", "checkpoints-collection", MaterializerProperties::getCheckpointsCollection);
        add(properties, "debounce", "debounce", MaterializerProperties::getDebounce);
        add(properties, "rewatch", "rewatch", MaterializerProperties::getRewatch);
        add(properties, "maxBackoff", "max-backoff", MaterializerProperties::getMaxBackoff);
        add(properties, "maxTime", "max-time", MaterializerProperties::getMaxTime);
        add(properties, "maxRows", "max-rows", MaterializerProperties::getMaxRows);
        add(properties, "maxTransactionRows", "max-transaction-rows", MaterializerProperties::getMaxTransactionRows);
        add(properties, "generationGrace", "generation-grace", MaterializerProperties::getGenerationGrace);
        add(properties, "passLease", "pass-lease", MaterializerProperties::getPassLease);
        add(properties, "partitionLease", "partition-lease", MaterializerProperties::getPartitionLease);
        add(properties, "maxConcurrentPasses", "max-concurrent-passes", MaterializerProperties::getMaxConcurrentPasses);
        add(properties, "passBatchSize", "pass-batch-size", MaterializerProperties::getPassBatchSize);
        add(properties, "enablePreImages", "enable-pre-images", MaterializerProperties::isEnablePreImages);
        add(properties, "reconcileInterval", "reconcile.interval", p -> p.getReconcile().getInterval());
        add(properties, "reconcileMaxPerSecond", "reconcile.max-per-second", p -> p.getReconcile().getMaxPerSecond());
        add(properties, "storageSources", "storage-sources", MaterializerProperties::getStorageSources);
        add(properties, "instanceId", "instance-id", MaterializerProperties::getInstanceId);
        return Collections.unmodifiableMap(properties);
    }

    private static void add(Map<String, Property> properties, String option, String key,
            Function<MaterializerProperties, @Nullable Object> value) {
        properties.put(option, new Property(MaterializerProperties.PREFIX + "." + key, value));
    }

    private record Property(String key, Function<MaterializerProperties, @Nullable Object> value) {
    }
}
