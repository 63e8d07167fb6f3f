package dev.materializer.sample;

import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The rule for tenant names. A tenant is the partition of its orders, products and views; its name
 * is also the prefix of its view ids ({@code acme:revenue}), so it may not contain {@code ':'}.
 */
public final class TenantName {

    private static final Pattern ALLOWED = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");

    private TenantName() {
    }

    /**
     * Checks a tenant name.
     * @param tenant the name from a request or the configuration
     * @return the name
     * @throws InvalidInputException when it breaks the rule
     */
    public static String check(@Nullable String tenant) {
        if (tenant == null || !ALLOWED.matcher(tenant).matches()) {
            throw new InvalidInputException("tenant must be 1 to 40 lower-case letters, digits or '-', "
                    + "starting with a letter or digit, was '" + tenant + "'");
        }
        return tenant;
    }
}
