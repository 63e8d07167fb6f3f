package dev.materializer.core.faults;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.types.ObjectId;

/**
 * Orders whose ids and keys mix types, written beside the shop's: ids {@code 3}, {@code "3"},
 * {@code 3.5}, ObjectIds (so ids that read alike as text are different documents), and a field
 * {@code k} holding {@code 1}, {@code 1.0}, {@code NumberLong(1)}, {@code "1"}, {@code 2}, ObjectIds
 * — values MongoDB groups together when they are numerically equal and apart by type otherwise.
 * Shop's other fields too (partition, product, quantity, price, status, customer, code), so every
 * view of the shop reads them. The shop's own orders get a {@code k} now and then.
 *
 * <p>Not thread-safe: the scenario's thread writes. Every write goes through the shop, which counts
 * its change events.
 */
final class MixedKeys {

    private static final ObjectId FIRST = new ObjectId("650000000000000000000001");

    private static final ObjectId SECOND = new ObjectId("650000000000000000000002");

    /** The values of {@code k}: numerically equal ones of three types, the text of one, ObjectIds. */
    static final List<Object> KEYS = List.of(1, 1.0, 1L, "1", 2, 2L, "2", 1.5, FIRST, SECOND);

    private static final String[] PRODUCTS = {"apple", "pear", "fig"};

    private static final String[] STATUSES = {"new", "paid", "shipped"};

    private final FaultRun run;

    private final List<Object> ids = new ArrayList<>();

    private int next;

    MixedKeys(FaultRun run) {
        this.run = run;
    }

    /** A few writes: inserts, updates of k, quantity or tenant, deletes; the change events they made. */
    int writes(int count) {
        int events = 0;
        for (int i = 0; i < count; i++) {
            int roll = run.random.nextInt(10);
            if (roll < 4 || ids.isEmpty()) {
                events += insert();
            }
            else if (roll < 7) {
                events += run.shop.update(Shop.ORDERS, Filters.eq("_id", run.shop.pick(ids)), switch (run.random.nextInt(3)) {
                    case 0 -> Updates.set("k", key());
                    case 1 -> Updates.inc("quantity", 1);
                    default -> Updates.set(Shop.PARTITION, run.shop.tenant());
                });
            }
            else if (roll < 8) {
                // A shop order takes a k of its own.
                events += run.shop.update(Shop.ORDERS, Filters.eq("_id", run.shop.anyOrder()), Updates.set("k", key()));
            }
            else {
                Object id = ids.remove(run.random.nextInt(ids.size()));
                events += run.shop.delete(Shop.ORDERS, Filters.eq("_id", id));
            }
        }
        return events;
    }

    private int insert() {
        Object id = newId();
        if (id == null) {
            return 0;
        }
        String tenant = run.shop.tenant();
        run.shop.insert(Shop.ORDERS, new Document("_id", id).append(Shop.PARTITION, tenant)
            .append("product", PRODUCTS[run.random.nextInt(PRODUCTS.length)]).append("quantity", 1 + run.random.nextInt(4))
            .append("price", 1 + run.random.nextInt(9)).append("status", STATUSES[run.random.nextInt(STATUSES.length)])
            .append("customer", tenant + "-c" + run.random.nextInt(4)).append("code", "m-" + next++).append("k", key()));
        ids.add(id);
        return 1;
    }

    /** An id no order has: a small number, its text or a half, or an ObjectId; null when the one drawn is taken. */
    private Object newId() {
        int number = 1 + run.random.nextInt(6);
        Object id = switch (run.random.nextInt(4)) {
            case 0 -> number;
            case 1 -> String.valueOf(number);
            case 2 -> number + 0.5;
            default -> new ObjectId();
        };
        return ids.contains(id) ? null : id;
    }

    Object key() {
        return KEYS.get(run.random.nextInt(KEYS.size()));
    }
}
