package io.stockade.query.stock;

import org.springframework.data.jpa.repository.JpaRepository;

interface StockLevelRepository extends JpaRepository<StockLevelRow, String> {}
