package dev.materializer.spring.autoconfigure.diagnostics;

import java.beans.PropertyDescriptor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.materializer.spring.autoconfigure.MaterializerProperties;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Warns at startup of each {@code materializer.*} key that no property of the starter reads (a
 * misspelt {@code materializer.debouce=5s} is otherwise ignored in silence), naming the nearest real
 * key. The real keys are those of {@link MaterializerProperties}, read from its getters, so a new
 * property is known without a list to keep; keys are compared in Boot's canonical form, so
 * {@code MATERIALIZER_DEBOUCE} or {@code materializer.maxRows} are judged as Boot binds them.
 * Runs once, when the singletons are created. Thread-safe: no state after construction.
 */
public final class UnknownMaterializerKeys implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(UnknownMaterializerKeys.class);

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of(MaterializerProperties.PREFIX);

    private final Environment environment;

    /** @param environment where the keys are read */
    public UnknownMaterializerKeys(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        for (String unknown : unknownKeys()) {
            String nearest = nearest(unknown);
            log.warn("The configuration property '{}' is not a materializer property and is ignored{}", unknown,
                    nearest != null ? "; did you mean '" + nearest + "'?" : "");
        }
    }

    /** The keys under {@code materializer.} that no property reads, as written (canonical form), sorted. */
    Set<String> unknownKeys() {
        Set<String> knownKeys = new TreeSet<>();
        Set<String> mapKeys = new TreeSet<>();
        collect(MaterializerProperties.PREFIX, MaterializerProperties.class, knownKeys, mapKeys);
        // Compared as Boot compares names: max-rows, maxRows and MAX_ROWS are one key.
        List<ConfigurationPropertyName> known = knownKeys.stream().map(ConfigurationPropertyName::of).toList();
        List<ConfigurationPropertyName> maps = mapKeys.stream().map(ConfigurationPropertyName::of).toList();
        Set<String> unknown = new TreeSet<>();
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            if (source instanceof IterableConfigurationPropertySource iterable) {
                iterable.stream().filter(PREFIX::isAncestorOf)
                    .filter(name -> !known.contains(name) && maps.stream().noneMatch(map -> map.isAncestorOf(name)))
                    .map(ConfigurationPropertyName::toString)
                    .forEach(unknown::add);
            }
        }
        return unknown;
    }

    /** The real key nearest to an unknown one, if one is near enough to be what was meant. */
    static @Nullable String nearest(String unknown) {
        Set<String> known = new TreeSet<>();
        collect(MaterializerProperties.PREFIX, MaterializerProperties.class, known, new TreeSet<>());
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String candidate : known) {
            int distance = distance(unknown, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        // Near enough: a few letters wrong, not another word.
        return (best != null && bestDistance <= Math.max(2, unknownTail(unknown).length() / 3)) ? best : null;
    }

    private static String unknownTail(String key) {
        return key.substring(MaterializerProperties.PREFIX.length() + 1);
    }

    /** The keys of a properties class: its readable properties, nested classes of the starter's own walked. */
    private static void collect(String prefix, Class<?> type, Set<String> known, Set<String> maps) {
        for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
            if (property.getReadMethod() == null || property.getName().equals("class")) {
                continue;
            }
            String key = prefix + "." + kebab(property.getName());
            Class<?> propertyType = property.getPropertyType();
            if (Map.class.isAssignableFrom(propertyType)) {
                maps.add(key);
                known.add(key);
            }
            else if (propertyType.getName().startsWith("dev.materializer.")) {
                collect(key, propertyType, known, maps);
            }
            else {
                known.add(key);
            }
        }
    }

    private static String kebab(String camel) {
        StringBuilder kebab = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                kebab.append('-').append(Character.toLowerCase(c));
            }
            else {
                kebab.append(c);
            }
        }
        return kebab.toString();
    }

    /** Levenshtein distance: the fewest letters inserted, removed or replaced to go from one to the other. */
    static int distance(String from, String to) {
        int[] previous = new int[to.length() + 1];
        int[] current = new int[to.length() + 1];
        for (int j = 0; j <= to.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= from.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= to.length(); j++) {
                int replace = previous[j - 1] + (from.charAt(i - 1) == to.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(replace, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[to.length()];
    }
}
