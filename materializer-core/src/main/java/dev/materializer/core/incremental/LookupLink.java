package dev.materializer.core.incremental;

/**
 * A {@code $lookup} (the {@code localField}/{@code foreignField} form, without {@code let} or
 * {@code pipeline}) whose effect on the rows the analysis can follow back to the primary source: a
 * document of the foreign collection joins the primary documents whose {@code localPath} matches
 * its {@code foreignField}, so a change of it affects the keys of exactly those primary documents.
 *
 * <p>Immutable and thread-safe.
 *
 * @param foreignCollection the {@code from} of the {@code $lookup}
 * @param foreignField its {@code foreignField}: a top-level field of the foreign documents
 * @param localPath the field path of the primary source documents that the {@code localField}
 *     holds at the {@code $lookup} (after a {@code $group}: the key path behind the row {@code _id}
 *     part it names)
 * @param stage the index of the {@code $lookup} in the pipeline
 */
public record LookupLink(String foreignCollection, String foreignField, String localPath, int stage) {
}
