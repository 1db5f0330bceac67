--
-- PostgreSQL database dump
--
SET statement_timeout = 0;
