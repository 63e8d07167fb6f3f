package dev.materializer.spring.data;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import dev.materializer.core.InvalidViewDocumentException;
import dev.materializer.core.engine.ViewDocumentCheck;
import org.bson.BsonDocument;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.mongodb.core.MongoOperations;

import static com.mongodb.client.model.Filters.eq;

/**
 * Installs the {@link ViewTemplate}s of the application for tenants, idempotently: each view document
 * is upserted by its {@code _id} with {@code $set} of the definition (and {@code $unset} of the
 * optional fields a template does not declare), so installing again neither duplicates a view nor
 * resets it. The engine's status field is never written; an unchanged definition is a no-op update,
 * which the engine does not see as a change.
 *
 * <p>Every template is checked when this is created, with the engine's own
 * the engine's own check ({@link ViewDocumentCheck}), and against the other templates (two with one
 * id pattern or one target would clash in every tenant): a bad template fails the context with an
 * {@link InvalidViewTemplateException} naming its bean. The auto-configuration also calls
 * {@link #reapply()} at startup, so a changed template reaches every tenant that has its view.
 *
 * <p>The documents are written through the driver ({@link MongoOperations#getCollection}), not the
 * template's mapping: pipelines reach MongoDB exactly as written. Thread-safe.
 */
public final class ViewTemplates {

    private static final Logger log = LoggerFactory.getLogger(ViewTemplates.class);

    private static final String CHECK_TENANT = "tenant";

    /** What a tenant must be, as the refusal of another one says. */
    public static final String TENANT_RULE = "a tenant is a non-blank string without surrounding whitespace and "
            + "without '{' or '}' (the placeholder " + ViewTemplate.TENANT + " is replaced by it, never stored)";

    private final MongoOperations mongo;

    private final ViewNaming naming;

    private final Map<String, ViewTemplate> templates;

    /**
     * Checks the templates and creates the installer.
     * @param mongo where the views collection is
     * @param naming the views collection and the fields shared with the engine
     * @param templates the templates by bean name, in installation order
     * @throws InvalidViewTemplateException when a template is invalid or two clash
     */
    public ViewTemplates(MongoOperations mongo, ViewNaming naming, Map<String, ViewTemplate> templates) {
        this.mongo = mongo;
        this.naming = naming;
        this.templates = Collections.unmodifiableMap(new LinkedHashMap<>(templates));
        check(naming, this.templates);
    }

    /** The templates by bean name, in installation order. */
    public Map<String, ViewTemplate> all() {
        return this.templates;
    }

    /**
     * The template of a bean name or an id pattern.
     * @param nameOrIdPattern a bean name, or an id pattern such as {@code "{tenant}:revenue"}
     * @return the template, if there is one
     */
    public Optional<ViewTemplate> find(String nameOrIdPattern) {
        ViewTemplate byName = this.templates.get(nameOrIdPattern);
        if (byName != null) {
            return Optional.of(byName);
        }
        return this.templates.values().stream().filter(t -> t.idPattern().equals(nameOrIdPattern)).findFirst();
    }

    /**
     * Installs or updates every template's view for a tenant.
     * @param tenant the tenant: see {@link #TENANT_RULE}
     * @return the ids of its views, in template order
     * @throws IllegalArgumentException for a tenant {@link #TENANT_RULE} refuses, before anything is written
     */
    public List<String> installFor(String tenant) {
        return install(tenant, this.templates.values());
    }

    /**
     * Removes the tenant's views of every template. Their rows stay in the targets until you remove
     * them (the engine stops keeping a view whose document is gone).
     * @param tenant the tenant
     * @return the ids of the views removed
     */
    public List<String> removeFor(String tenant) {
        requireTenant(tenant);
        List<String> ids = this.templates.values().stream().map(template -> template.idFor(tenant)).toList();
        List<String> removed = new ArrayList<>();
        for (Document view : views().find(Filters.and(Filters.in("_id", ids), eq(this.naming.partitionField(), tenant)))
            .projection(Projections.include("_id"))) {
            removed.add(String.valueOf(view.get("_id")));
        }
        if (!removed.isEmpty()) {
            views().deleteMany(Filters.and(Filters.in("_id", removed), eq(this.naming.partitionField(), tenant)));
            log.info("Removed the views {} of tenant '{}'", removed, tenant);
        }
        return removed;
    }

    /**
     * Applies every template again to the tenants that have its view (a view document whose
     * {@code _id} is the template's id for the document's partition), so a changed template reaches
     * them; views already equal to their template do not change. A template no tenant has yet is not
     * installed: that is {@link #installFor}'s job.
     * @return per tenant, the ids of its views applied again
     */
    public Map<String, List<String>> reapply() {
        if (this.templates.isEmpty()) {
            return Map.of();
        }
        Map<String, Set<ViewTemplate>> byTenant = new LinkedHashMap<>();
        for (Document view : views().find().projection(Projections.include("_id", this.naming.partitionField()))) {
            if (view.get("_id") instanceof String id && view.get(this.naming.partitionField()) instanceof String tenant
                    && isTenant(tenant)) {
                // A partition no installFor would write (a blank one, a placeholder) is not applied again.
                for (ViewTemplate template : this.templates.values()) {
                    if (tenant.equals(template.tenantOf(id))) {
                        byTenant.computeIfAbsent(tenant, key -> new LinkedHashSet<>()).add(template);
                    }
                }
            }
        }
        Map<String, List<String>> applied = new LinkedHashMap<>();
        byTenant.forEach((tenant, templates) -> applied.put(tenant, install(tenant, templates)));
        return applied;
    }

    private List<String> install(String tenant, Collection<ViewTemplate> templates) {
        requireTenant(tenant);
        List<String> ids = new ArrayList<>();
        List<String> changed = new ArrayList<>();
        for (ViewTemplate template : templates) {
            String id = template.idFor(tenant);
            UpdateResult result = views().updateOne(eq("_id", id), update(tenant, template),
                    new UpdateOptions().upsert(true));
            ids.add(id);
            if (result.getUpsertedId() != null || result.getModifiedCount() > 0) {
                changed.add(id);
            }
        }
        if (!changed.isEmpty()) {
            log.info("Installed or updated the views {} of tenant '{}'", changed, tenant);
        }
        return ids;
    }

    private Bson update(String tenant, ViewTemplate template) {
        List<Bson> updates = new ArrayList<>();
        updates.add(Updates.set(this.naming.partitionField(), tenant));
        template.definition().forEach((field, value) -> updates.add(Updates.set(field, value)));
        // A template that drops an optional field must drop it from the stored view too.
        for (String optional : List.of("sourceFields", "incremental")) {
            if (!template.definition().containsKey(optional)) {
                updates.add(Updates.unset(optional));
            }
        }
        template.fields().forEach((field, value) -> updates.add(Updates.set(field, value)));
        return Updates.combine(updates);
    }

    private MongoCollection<Document> views() {
        return this.mongo.getCollection(this.naming.viewsCollection());
    }

    private static void requireTenant(String tenant) {
        if (!isTenant(tenant)) {
            throw new IllegalArgumentException("Refused the tenant '" + tenant + "': " + TENANT_RULE);
        }
    }

    /** Whether a string may be a tenant: see {@link #TENANT_RULE}. */
    static boolean isTenant(@Nullable String tenant) {
        return tenant != null && !tenant.isBlank() && tenant.strip().equals(tenant) && tenant.indexOf('{') < 0
                && tenant.indexOf('}') < 0;
    }

    private static void check(ViewNaming naming, Map<String, ViewTemplate> templates) {
        ViewDocumentCheck engineCheck = new ViewDocumentCheck(naming.partitionField(), naming.viewsCollection());
        Map<String, String> ids = new HashMap<>();
        Map<String, String> targets = new HashMap<>();
        templates.forEach((name, template) -> {
            for (String field : template.fields().keySet()) {
                if (field.equals(naming.partitionField()) || field.equals(naming.statusField())) {
                    throw new InvalidViewTemplateException(name, template, "field(\"" + field
                            + "\") is the partition or the status field; the installer writes the partition and "
                            + "only the engine writes the status", null);
                }
            }
            BsonDocument document;
            try {
                document = template.documentFor(CHECK_TENANT, naming.partitionField()).toBsonDocument();
            }
            catch (RuntimeException ex) {
                throw new InvalidViewTemplateException(name, template, "it cannot be written as BSON: " + ex.getMessage(),
                        ex);
            }
            try {
                engineCheck.check(document);
            }
            catch (InvalidViewDocumentException ex) {
                throw new InvalidViewTemplateException(name, template, ex.getMessage(), ex);
            }
            String sameId = ids.putIfAbsent(template.idPattern(), name);
            if (sameId != null) {
                throw new InvalidViewTemplateException(name, template, "view template bean '" + sameId
                        + "' has the same id pattern", null);
            }
            String sameTarget = targets.putIfAbsent(template.targetCollection(), name);
            if (sameTarget != null) {
                throw new InvalidViewTemplateException(name, template, "view template bean '" + sameTarget
                        + "' has the same targetCollection '" + template.targetCollection()
                        + "' (two views of one tenant may not share a target)", null);
            }
        });
    }
}
