package dev.materializer.spring.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.mongodb.autoconfigure.MongoConnectionDetails;
import org.springframework.boot.mongodb.autoconfigure.MongoProperties;
import org.springframework.util.StringUtils;

/**
 * Chooses the database of the engine: {@code materializer.database}, else the database of the
 * application's MongoDB connection, in the order Spring Data MongoDB uses
 * ({@code spring.mongodb.database}, then the database of the connection details).
 */
final class MaterializerDatabase {

    static final String KEY = MaterializerProperties.PREFIX + ".database";

    private MaterializerDatabase() {
    }

    static String resolve(MaterializerProperties properties, @Nullable MongoProperties mongoProperties,
            @Nullable MongoConnectionDetails connectionDetails) {
        String configured = properties.getDatabase();
        if (configured != null) {
            return requireValid(configured);
        }
        if (mongoProperties != null && StringUtils.hasText(mongoProperties.getDatabase())) {
            return mongoProperties.getDatabase();
        }
        if (connectionDetails != null && StringUtils.hasText(connectionDetails.getConnectionString().getDatabase())) {
            return connectionDetails.getConnectionString().getDatabase();
        }
        if (mongoProperties != null && StringUtils.hasText(mongoProperties.getMongoClientDatabase())) {
            return mongoProperties.getMongoClientDatabase();
        }
        throw new InvalidConfigurationPropertyValueException(KEY, null,
                KEY + " is not set and the application's MongoDB connection names no database: set " + KEY
                        + ", spring.mongodb.database, or a database in spring.mongodb.uri");
    }

    private static String requireValid(String database) {
        // The driver's own rules for database names, said here with the key that holds the name.
        if (database.isBlank() || database.length() > 63 || database.chars().anyMatch(c -> "/\\. \"$\0".indexOf(c) >= 0)) {
            throw new InvalidConfigurationPropertyValueException(KEY, database,
                    KEY + " must be a database name (1 to 63 characters, none of '/', '\\', '.', ' ', '\"', '$'), was '"
                            + database + "'");
        }
        return database;
    }
}
