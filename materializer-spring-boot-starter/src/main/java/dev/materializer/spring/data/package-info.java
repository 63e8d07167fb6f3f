/**
 * Views for Spring Data MongoDB applications: {@link dev.materializer.spring.data.ViewTemplate}s
 * declared as beans and installed per tenant by {@link dev.materializer.spring.data.ViewTemplates},
 * and {@link dev.materializer.spring.data.MaterializedViews}, which reads the current generation of a
 * view into typed objects through {@code MongoTemplate}'s mapping. Configured when
 * {@code MongoTemplate} is on the classpath and a bean.
 */
@NullMarked
package dev.materializer.spring.data;

import org.jspecify.annotations.NullMarked;
