package dev.materializer.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A multi-tenant shop whose reports are materialized views kept live by the materializer starter. */
@SpringBootApplication
public class SampleApplication {

    /**
     * Starts the shop.
     * @param args the command-line arguments
     */
    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
