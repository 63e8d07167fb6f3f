/**
 * The shop's views: the templates every tenant gets, as the starter's {@code ViewTemplate} beans
 * ({@link dev.materializer.sample.views.ShopViews}), and reading their rows through the starter's
 * {@code MaterializedViews}, current generation only.
 */
@NullMarked
package dev.materializer.sample.views;

import org.jspecify.annotations.NullMarked;
