package dev.materializer.spring.autoconfigure;

import dev.materializer.core.MaterializerOptions;

/**
 * Adjusts the engine's options after the {@code materializer.*} properties and the
 * {@link dev.materializer.core.MaterializerListener} beans are applied. Every bean of this type is
 * applied, in {@link org.springframework.core.Ordered order}; the options are checked after the
 * last one.
 *
 * <pre>{@code
 * @Bean
 * MaterializerOptionsCustomizer tenantsAsPartitions() {
 *     return options -> options.partitionField("tenant");
 * }
 * }</pre>
 */
@FunctionalInterface
public interface MaterializerOptionsCustomizer {

    /**
     * Adjusts the options.
     * @param options the builder, holding the properties and the previous customizers' changes
     */
    void customize(MaterializerOptions.Builder options);
}
