package dev.materializer.core.view;

import org.bson.BsonDocument;

/**
 * Reads a document of the views collection into a {@link ViewDefinition}, or says — naming the
 * field and what is allowed — why it cannot run.
 *
 * <p>Stateless and thread-safe.
 */
public final class ViewDefinitionParser {

    private final String partitionField;

    private final String viewsCollection;

    /**
     * Creates a parser.
     * @param partitionField the field of a view document that names its partition
     * @param viewsCollection the views collection, which no view may read or target
     */
    public ViewDefinitionParser(String partitionField, String viewsCollection) {
        this.partitionField = partitionField;
        this.viewsCollection = viewsCollection;
    }

    /**
     * Parses a view document.
     * @param document the document as stored (the status field is ignored)
     * @return the definition
     * @throws InvalidViewException when the document cannot run
     */
    public ViewDefinition parse(BsonDocument document) throws InvalidViewException {
        throw new UnsupportedOperationException("ViewDefinitionParser.parse: not implemented yet");
    }
}
