package dev.materializer.sample.views;

import dev.materializer.spring.data.ViewTemplate;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.mongodb.core.aggregation.Aggregation;
import org.springframework.data.mongodb.core.aggregation.ArithmeticOperators;

import static org.springframework.data.mongodb.core.aggregation.Aggregation.group;

/**
 * The views every tenant gets, as {@link ViewTemplate} beans: the starter's
 * {@link dev.materializer.spring.data.ViewTemplates} checks them at startup, installs them for a
 * tenant ({@code <tenant>:<name>}) and applies a changed one again to the tenants that have it.
 * Pipelines are written as Spring Data aggregations or as MongoDB Extended JSON, as the shell writes
 * them.
 */
@Configuration(proxyBeanMethods = false)
public class ShopViews {

    /** The id pattern of the shop's views: {@code <tenant>:<name>}. */
    public static final String ID_PATTERN = ViewTemplate.TENANT + ":";

    /**
     * The id of a tenant's view.
     * @param tenant the tenant
     * @param name the name of the view
     * @return {@code <tenant>:<name>}
     */
    public static String viewId(String tenant, String name) {
        return tenant + ":" + name;
    }

    /** Revenue, units and orders per product: a Spring Data aggregation. */
    @Bean
    ViewTemplate revenueView() {
        return ViewTemplate.withId(ID_PATTERN + "revenue")
            .collections("orders")
            .aggregation(Aggregation.newAggregation(group("product")
                .sum(ArithmeticOperators.valueOf("quantity").multiplyBy("price")).as("revenue")
                .sum("quantity").as("units")
                .count().as("orders")))
            .targetCollection("revenue_by_product")
            .sourceFields("orders", "product", "quantity", "price")
            .field("description", "Revenue, units and orders per product.")
            .build();
    }

    /** The ten customers who spent most. */
    @Bean
    ViewTemplate topCustomersView() {
        return ViewTemplate.withId(ID_PATTERN + "top-customers")
            .collections("orders")
            .pipelineJson("""
                    [
                      {"$group": {
                        "_id": "$customer",
                        "spent": {"$sum": {"$multiply": ["$quantity", "$price"]}},
                        "orders": {"$sum": 1}
                      }},
                      {"$sort": {"spent": -1, "_id": 1}},
                      {"$limit": 10}
                    ]""")
            .targetCollection("top_customers")
            .sourceFields("orders", "customer", "quantity", "price")
            .field("description", "The ten customers who spent most.")
            .build();
    }

    /** Revenue per category: orders joined with the catalogue through {@code $lookup}, so it follows both. */
    @Bean
    ViewTemplate revenueByCategoryView() {
        return ViewTemplate.withId(ID_PATTERN + "revenue-by-category")
            .collections("orders", "products")
            .pipelineJson("""
                    [
                      {"$lookup": {
                        "from": "products",
                        "let": {"sku": "$product"},
                        "pipeline": [{"$match": {"$expr": {"$eq": ["$sku", "$$sku"]}}}],
                        "as": "item"
                      }},
                      {"$unwind": {"path": "$item", "preserveNullAndEmptyArrays": true}},
                      {"$group": {
                        "_id": {"$ifNull": ["$item.category", "uncategorised"]},
                        "revenue": {"$sum": {"$multiply": ["$quantity", "$price"]}},
                        "units": {"$sum": "$quantity"}
                      }}
                    ]""")
            .targetCollection("revenue_by_category")
            .sourceFields("orders", "product", "quantity", "price")
            .sourceFields("products", "sku", "category")
            .field("description", "Revenue per product category: orders joined with the product catalogue "
                    + "through $lookup, so it follows both.")
            .build();
    }

    /** The product with most revenue: a view over the target of {@code revenue}, so it runs after it in the same pass. */
    @Bean
    ViewTemplate bestProductView() {
        return ViewTemplate.withId(ID_PATTERN + "best-product")
            .collections("revenue_by_product")
            .pipelineJson("""
                    [
                      {"$sort": {"revenue": -1, "_id.id": 1}},
                      {"$limit": 1},
                      {"$project": {"_id": {"$literal": "best"}, "product": "$_id.id", "revenue": 1, "units": 1}}
                    ]""")
            .targetCollection("best_product")
            .field("description", "The product with the most revenue: a view over the target of the view "
                    + "'revenue', so it runs after it in the same pass. Its rows keep their key in _id.id.")
            .build();
    }
}
