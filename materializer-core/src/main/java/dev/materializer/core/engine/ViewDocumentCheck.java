package dev.materializer.core.engine;

import dev.materializer.core.InvalidViewDocumentException;
import dev.materializer.core.MaterializerOptions;
import java.util.Map;

import dev.materializer.core.guard.ScopeGuard;
import dev.materializer.core.guard.ScopeViolationException;
import dev.materializer.core.view.InvalidViewException;
import dev.materializer.core.view.ViewDefinition;
import dev.materializer.core.view.ViewDefinitionParser;
import org.bson.BsonDocument;

/**
 * Checks a view document before it is written, as the engine will read it: the same parsing and the
 * same scope guard, so a document it accepts is one the engine runs. For code that installs views
 * (the starter's view templates check theirs at start); what only a running engine can see, such as
 * two views of one partition writing one target, is not checked here.
 *
 * <p>Thread-safe: immutable.
 */
public final class ViewDocumentCheck {

    private final ViewDefinitionParser parser;

    private final ScopeGuard guard;

    /**
     * A check for the engine's naming.
     * @param partitionField the field that names a view's partition (as {@link MaterializerOptions#partitionField()})
     * @param viewsCollection the collection of the view documents (as {@link MaterializerOptions#viewsCollection()})
     */
    public ViewDocumentCheck(String partitionField, String viewsCollection) {
        this.parser = new ViewDefinitionParser(partitionField, viewsCollection);
        this.guard = new ScopeGuard(partitionField);
    }

    /**
     * Checks one view document.
     * @param document the document as it would be written to the views collection
     * @throws InvalidViewDocumentException naming what the engine would refuse: a field of the wrong
     *     type, a pipeline that writes, or one that reads outside the view's sources and partition
     */
    public void check(BsonDocument document) {
        ViewDefinition view;
        try {
            view = parser.parse(document);
        }
        catch (InvalidViewException ex) {
            throw new InvalidViewDocumentException(ex.getMessage(), ex);
        }
        try {
            guard.scope(view.pipeline(), view.partition(), view.collections(), view.collections().get(0), Map.of());
        }
        catch (ScopeViolationException ex) {
            throw new InvalidViewDocumentException(ex.getMessage(), ex);
        }
    }
}
