package dev.materializer.sample.shop;

import java.util.regex.Pattern;

import dev.materializer.sample.InvalidInputException;
import org.jspecify.annotations.Nullable;

/**
 * An order as a client sends it, to create or replace one.
 *
 * @param customer who buys: 1 to 100 characters
 * @param product the product's sku: lower-case letters, digits or '-'
 * @param quantity how many: 1 to 10000
 * @param price the unit price: 0 to 1000000
 */
public record OrderInput(@Nullable String customer, @Nullable String product, @Nullable Integer quantity,
        @Nullable Double price) {

    /** The largest quantity of one order. */
    public static final int MAX_QUANTITY = 10_000;

    /** The largest unit price. */
    public static final double MAX_PRICE = 1_000_000;

    static final Pattern SKU = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");

    /**
     * Checks every field.
     * @return this input, complete and within range
     * @throws InvalidInputException naming the first field that is missing or out of range
     */
    public OrderInput checked() {
        if (this.customer == null || this.customer.isBlank() || this.customer.length() > 100) {
            throw new InvalidInputException("customer must be 1 to 100 characters, was " + quote(this.customer));
        }
        if (this.product == null || !SKU.matcher(this.product).matches()) {
            throw new InvalidInputException("product must be a sku of 1 to 40 lower-case letters, digits or '-', was "
                    + quote(this.product));
        }
        if (this.quantity == null || this.quantity < 1 || this.quantity > MAX_QUANTITY) {
            throw new InvalidInputException("quantity must be a whole number from 1 to " + MAX_QUANTITY + ", was "
                    + this.quantity);
        }
        if (this.price == null || !(this.price >= 0 && this.price <= MAX_PRICE)) {
            throw new InvalidInputException("price must be a number from 0 to " + (long) MAX_PRICE + ", was " + this.price);
        }
        return this;
    }

    private static String quote(@Nullable String value) {
        return value == null ? "missing" : "'" + value + "'";
    }
}
