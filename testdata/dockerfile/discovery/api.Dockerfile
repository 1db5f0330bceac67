FROM alpine
