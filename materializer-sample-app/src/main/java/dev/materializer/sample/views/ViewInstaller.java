package dev.materializer.sample.views;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import dev.materializer.sample.MaterializerFields;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.stereotype.Component;

import static com.mongodb.client.model.Filters.eq;

/**
 * Writes the views of a tenant into the views collection, idempotently: each view document is
 * upserted by its {@code _id} with {@code $set} of its definition, so installing again neither
 * duplicates a view nor resets it — the status field the engine keeps is never touched, and an
 * unchanged definition is a no-op update.
 *
 * <p>The driver, not the template's mapping, writes the documents: pipelines must reach MongoDB
 * exactly as written. Thread-safe.
 */
@Component
public class ViewInstaller {

    private static final Logger log = LoggerFactory.getLogger(ViewInstaller.class);

    private final MongoTemplate mongo;

    private final MaterializerFields fields;

    private final ViewTemplates templates;

    ViewInstaller(MongoTemplate mongo, MaterializerFields fields, ViewTemplates templates) {
        this.mongo = mongo;
        this.fields = fields;
        this.templates = templates;
    }

    /**
     * The id of a tenant's view: ids are unique across the collection, so they carry the tenant.
     * @param tenant the tenant
     * @param name the name of the view
     * @return {@code <tenant>:<name>}
     */
    public static String viewId(String tenant, String name) {
        return tenant + ":" + name;
    }

    /**
     * Installs or updates every view of a tenant.
     * @param tenant a checked tenant name
     * @return the ids of its views
     */
    public List<String> install(String tenant) {
        MongoCollection<Document> views = this.mongo.getCollection(this.fields.viewsCollection());
        List<String> ids = new ArrayList<>();
        for (ViewTemplate template : this.templates.all()) {
            String id = viewId(tenant, template.name());
            views.updateOne(eq("_id", id), definition(tenant, template), new UpdateOptions().upsert(true));
            ids.add(id);
        }
        log.info("Installed the views {} of tenant '{}'", ids, tenant);
        return ids;
    }

    private Bson definition(String tenant, ViewTemplate template) {
        List<Bson> updates = new ArrayList<>(List.of(
                Updates.set(this.fields.partitionField(), tenant),
                Updates.set("description", template.description()),
                Updates.set("collections", template.collections()),
                Updates.set("pipeline", template.pipeline()),
                Updates.set("targetCollection", template.targetCollection())));
        // A template that drops sourceFields must drop them from the stored view too.
        updates.add(template.sourceFields() == null ? Updates.unset("sourceFields")
                : Updates.set("sourceFields", template.sourceFields()));
        return Updates.combine(updates);
    }
}
