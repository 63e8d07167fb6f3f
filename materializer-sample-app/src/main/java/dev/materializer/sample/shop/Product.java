package dev.materializer.sample.shop;

import dev.materializer.sample.InvalidInputException;
import org.jspecify.annotations.Nullable;

/**
 * A product of a tenant's catalogue.
 *
 * @param sku the key orders use in {@code product}
 * @param name the name people read
 * @param category the category the view {@code revenue-by-category} groups by
 */
public record Product(String sku, String name, String category) {

    /**
     * A product whose name and category come from a client, checked.
     * @param sku the sku from the URL
     * @param name 1 to 100 characters
     * @param category 1 to 40 characters
     * @return the product
     * @throws InvalidInputException naming the first field out of range
     */
    static Product checked(String sku, @Nullable String name, @Nullable String category) {
        if (!OrderInput.SKU.matcher(sku).matches()) {
            throw new InvalidInputException("sku must be 1 to 40 lower-case letters, digits or '-', was '" + sku + "'");
        }
        if (name == null || name.isBlank() || name.length() > 100) {
            throw new InvalidInputException("name must be 1 to 100 characters, was " + name);
        }
        if (category == null || category.isBlank() || category.length() > 40) {
            throw new InvalidInputException("category must be 1 to 40 characters, was " + category);
        }
        return new Product(sku, name, category);
    }
}
