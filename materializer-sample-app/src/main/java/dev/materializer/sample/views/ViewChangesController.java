package dev.materializer.sample.views;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import dev.materializer.core.ViewSubscription;
import dev.materializer.sample.TenantName;
import dev.materializer.spring.data.MaterializedViews;
import dev.materializer.spring.data.ViewChange;
import org.bson.Document;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * A tenant's view as server-sent events: each change of its rows is one event named by its kind
 * ({@code RESET}, {@code ADDED}, {@code CHANGED}, {@code REMOVED}) whose data is
 * {@code {generation, key, row, reason}}. The live dashboard ({@code /dashboard.html}) follows
 * the shop's views with it. Spring MVC: an {@link SseEmitter} fed by the starter's callback API;
 * the subscription closes when the client goes away.
 */
@RestController
@RequestMapping("/api/tenants/{tenant}/views")
class ViewChangesController {

    /** How long one stream lasts; the browser's EventSource reconnects after it. */
    private static final long STREAM_MILLIS = 30 * 60 * 1000L;

    private final MaterializedViews views;

    ViewChangesController(MaterializedViews views) {
        this.views = views;
    }

    @GetMapping(path = "/{name}/changes", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    SseEmitter changes(@PathVariable String tenant, @PathVariable String name) {
        String id = ShopViews.viewId(TenantName.check(tenant), name);
        SseEmitter emitter = new SseEmitter(STREAM_MILLIS);
        AtomicReference<@Nullable ViewSubscription> subscription = new AtomicReference<>();
        subscription.set(this.views.changes(tenant, id, Document.class, change -> send(emitter, change, subscription)));
        Runnable close = () -> {
            ViewSubscription open = subscription.get();
            if (open != null) {
                open.close();
            }
        };
        emitter.onCompletion(close);
        emitter.onTimeout(close);
        emitter.onError(failure -> close.run());
        return emitter;
    }

    private static void send(SseEmitter emitter, ViewChange<Document> change,
            AtomicReference<@Nullable ViewSubscription> subscription) {
        Map<String, @Nullable Object> data = new LinkedHashMap<>();
        data.put("generation", change.generation());
        data.put("key", PlainJson.of(change.key()));
        data.put("row", PlainJson.of(change.row()));
        data.put("reason", change.reason() == null ? null : change.reason().name());
        try {
            emitter.send(SseEmitter.event().name(change.kind().name()).data(data, MediaType.APPLICATION_JSON));
        }
        catch (IOException | IllegalStateException ex) {
            // The client went away: stop following the view
            ViewSubscription open = subscription.get();
            if (open != null) {
                open.close();
            }
        }
    }
}
