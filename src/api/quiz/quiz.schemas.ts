/** TypeBox schemas of the quiz operations: the seed's quiz, quiz session and quiz overview entry objects. */
import { Type, type Static } from '@sinclair/typebox';
import { DateTimeString, DigitsParam, IdParam } from '../params.ts';

export const FoodsaverParams = Type.Object({ foodsaverId: IdParam('user id') });
export const QuizSessionParams = Type.Object({ sessionId: DigitsParam('quiz session id') });

export const QuizSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  isDescriptionHtmlEncoded: Type.Boolean(),
  maxFailurePointsToSucceed: Type.Integer(),
  questionCountTimed: Type.Integer(),
  questionCountUntimed: Type.Integer(),
}, { title: 'Quiz', description: 'quizzes: 1 foodsaver, 2 store manager, 3 ambassador' });

export const QuizSessionSchema = Type.Object({
  id: Type.Integer(),
  foodsaverId: Type.Integer(),
  quizId: Type.Integer(),
  status: Type.Integer({ enum: [0, 1, 2], description: '0 running, 1 passed, 2 failed' }),
  questionsAnswered: Type.Integer(),
  startTime: DateTimeString('when the session started'),
  endTime: Type.Union([DateTimeString('when the session ended'), Type.Null()], { description: 'null while running' }),
  failurePoints: Type.Integer(),
  maxFailurePointsToSucceed: Type.Integer(),
  isTimed: Type.Boolean(),
  isTest: Type.Boolean(),
}, { title: 'QuizSession' });

export const QuizOverviewEntrySchema = Type.Object({
  quiz: QuizSchema,
  sessions: Type.Array(QuizSessionSchema, { description: 'running sessions first, then the newest' }),
}, { title: 'QuizOverviewEntry' });
export type QuizOverviewEntry = Static<typeof QuizOverviewEntrySchema>;

export const QuizOverviewSchema = Type.Array(QuizOverviewEntrySchema, { description: 'one entry per quiz the user has sessions in, by quiz id' });
