package io.pg2lite.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every kind of malformed input fails with a ProtocolException naming the field and the problem. */
class MalformedRecordTest {
  private static final String REL = "{'schema':'public','name':'t','rowKey':{'columns':['id']}}";
  private final ChangeLogCodec codec = new ChangeLogCodec();

  private static String record(String message) {
    return ("{'v':1,'watermark':'4e672h','pos':1,'message':" + message + "}").replace('\'', '"');
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', textBlock = """
      not json                  | / | malformed JSON
      empty array               | / | expected an object but found an array
      unknown tag               | /message/tag | unknown message tag "upsert"
      tag not first             | /message/relation | must start with its "tag" field
      no tag                    | /message/tag | missing required field "tag"
      unknown root field        | /extra | unknown field "extra"
      unknown message field     | /message/colour | unknown field "colour"
      field of another tag      | /message/key | field "key" does not belong to a "insert" message
      missing watermark         | /watermark | missing required field "watermark"
      missing v                 | /v | missing required field "v"
      future version            | /v | unsupported protocol version 2
      malformed watermark       | /watermark | Malformed watermark "4E672H"
      string pos                | /pos | expected an integer but found a string
      negative pos              | /pos | pos must not be negative
      missing rowKey            | /message/relation/rowKey | missing required field "rowKey"
      integer beyond int64      | /message/new/n | outside the 64-bit range
      inexact float             | /message/new/x | not exactly a 64-bit float
      object as value           | /message/new/x | json/jsonb values travel as text
      delete without key        | /message/key | missing required field "key"
      truncate not array        | /message/relations | expected an array of relations but found an object
      bad index direction       | /message/spec/columns/a | index direction must be "ASC" or "DESC"
      bad commit time           | /message/commitTime | is not an ISO-8601 instant
      bad replica identity      | /message/relation/rowKey/type | unknown replica identity "everything"
      mistyped column name      | /message/relation/rowKey/columns/0 | expected a string but found a number
      duplicate field           | /message/new/id | Duplicate field 'id'
      trailing record           | / | trailing content after the record
      trailing garbage          | / | malformed JSON
      negative change count     | /message/changes | changes must not be negative
      backfill without rows     | /message/rowValues | missing required field "rowValues"
      create-table without spec | /message/spec | missing required field "spec"
      verify unknown result     | /message | a verify result is "compared" or "not-comparable"
      verify without digests    | /message/digests | missing required field "digests"
      verify bad digest sum     | /message/digests/0 | 32 lower-case hexadecimal digits
      verify long digest        | /message/digests/0/2 | a digest is [rows, "sum"]: two elements
      verify bad buckets        | /message/buckets | buckets are {"kind":"hashed"}
      verify compared reason    | /message | a compared table has no reason
      verify no reason          | /message | a table not comparable has a reason
      verify backward range     | /message/keyRange | a key range ends at or after its start
      """)
  void rejects(String name, String field, String detail) {
    ProtocolException e = assertThrows(ProtocolException.class, () -> codec.decode(input(name)));
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.getMessage().contains(detail), () -> "expected \"" + detail + "\" in: " + e.getMessage());
    assertTrue(e.getMessage().startsWith("Invalid change-log record at " + field + ": "), e.getMessage());
  }

  private static String input(String name) {
    return switch (name) {
      case "not json" -> "hello";
      case "empty array" -> "[]";
      case "unknown tag" -> record("{'tag':'upsert'}");
      case "tag not first" -> record("{'relation':" + REL + ",'tag':'insert','new':{}}");
      case "no tag" -> record("{}");
      case "unknown root field" -> record("{'tag':'rollback'}").replace("}}", "},\"extra\":1}");
      case "unknown message field" -> record("{'tag':'rollback','colour':'red'}");
      case "field of another tag" -> record("{'tag':'insert','relation':" + REL + ",'key':{},'new':{}}");
      case "missing watermark" -> "{\"v\":1,\"pos\":0,\"message\":{\"tag\":\"rollback\"}}";
      case "missing v" -> "{\"watermark\":\"0a\",\"pos\":0,\"message\":{\"tag\":\"rollback\"}}";
      case "future version" -> record("{'tag':'rollback'}").replace("\"v\":1", "\"v\":2");
      case "malformed watermark" -> record("{'tag':'rollback'}").replace("4e672h", "4E672H");
      case "string pos" -> record("{'tag':'rollback'}").replace("\"pos\":1", "\"pos\":\"1\"");
      case "negative pos" -> record("{'tag':'rollback'}").replace("\"pos\":1", "\"pos\":-1");
      case "missing rowKey" -> record("{'tag':'insert','relation':{'schema':'s','name':'t'},'new':{}}");
      case "integer beyond int64" -> record("{'tag':'insert','relation':" + REL + ",'new':{'n':9223372036854775808}}");
      case "inexact float" -> record("{'tag':'insert','relation':" + REL + ",'new':{'x':0.10000000000000000001}}");
      case "object as value" -> record("{'tag':'insert','relation':" + REL + ",'new':{'x':{'a':1}}}");
      case "delete without key" -> record("{'tag':'delete','relation':" + REL + "}");
      case "truncate not array" -> record("{'tag':'truncate','relations':{}}");
      case "bad index direction" -> record("{'tag':'create-index','spec':{'schema':'s','tableName':'t','name':'i',"
          + "'unique':false,'columns':{'a':'UP'}}}");
      case "bad commit time" -> record("{'tag':'begin','commitTime':'yesterday'}");
      case "bad replica identity" -> record("{'tag':'insert','relation':{'schema':'s','name':'t','rowKey':"
          + "{'columns':['id'],'type':'everything'}},'new':{}}");
      case "mistyped column name" -> record("{'tag':'insert','relation':{'schema':'s','name':'t','rowKey':"
          + "{'columns':[1]}},'new':{}}");
      case "duplicate field" -> record("{'tag':'insert','relation':" + REL + ",'new':{'id':1,'id':2}}");
      case "trailing record" -> record("{'tag':'rollback'}") + " {}";
      case "trailing garbage" -> record("{'tag':'rollback'}") + "x";
      case "negative change count" -> record("{'tag':'commit','changes':-3}");
      case "backfill without rows" -> record("{'tag':'backfill','relation':" + REL
          + ",'columns':[],'watermark':'0a'}");
      case "create-table without spec" -> record("{'tag':'create-table'}");
      case "verify unknown result" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'maybe'}");
      case "verify without digests" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'compared','buckets':{'kind':'hashed'}}");
      case "verify bad digest sum" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'compared','buckets':{'kind':'hashed'},'digests':[[1,'xyz']]}");
      case "verify long digest" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'compared','buckets':{'kind':'hashed'},'digests':[[1,'"
          + "0".repeat(32) + "',3]]}");
      case "verify bad buckets" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'compared','buckets':{'kind':'ranges','min':1}}");
      case "verify compared reason" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'compared','reason':'why','buckets':{'kind':'hashed'},"
          + "'digests':[[1,'" + "0".repeat(32) + "']]}");
      case "verify no reason" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'not-comparable'}");
      case "verify backward range" -> record("{'tag':'verify','id':'v1','relation':" + REL + ",'columns':['id'],'snapshot':'0b','since':'0a','result':'not-comparable','reason':'r','keyRange':{'from':5,'to':1}}");
      default -> throw new IllegalArgumentException(name);
    };
  }

  @Test
  void aTombstoneIsNotARecord() {
    ProtocolException e = assertThrows(ProtocolException.class, () -> codec.decode((byte[]) null));
    assertTrue(e.getMessage().contains("tombstone"));
  }
}
