package dev.materializer.sample.load;

import java.util.List;
import java.util.Map;

/** The calls the load generator makes to the shop. */
interface ShopClient {

    /** Installs a tenant (idempotent). */
    void installTenant(String tenant);

    /** Creates an order and gives its id. */
    String createOrder(String tenant, Map<String, Object> order);

    /** Replaces an order. */
    void replaceOrder(String tenant, String id, Map<String, Object> order);

    /** The views of a tenant, as the shop lists them. */
    List<Map<String, Object>> views(String tenant);
}
